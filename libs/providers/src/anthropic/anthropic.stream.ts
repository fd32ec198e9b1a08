/**
 * Anthropic SSE events → canonical chunks.
 *
 *   message_start          → first chunk, delta {role: "assistant", content: ""}, with `promptUsage`
 *                            (input and cache counts, final from here on)
 *   content_block_start    → tool_use: tool_calls delta {index, id, type, name, arguments: ""}
 *   content_block_delta    → text_delta → content; thinking_delta → reasoning_content;
 *                            input_json_delta → tool-call arguments (content for the JSON-mode tool);
 *                            signature_delta / citations_delta → nothing
 *   message_delta          → chunk with finish_reason (output token count remembered)
 *   message_stop           → usage chunk (`choices: []`): message_start input/cache + message_delta output
 *   ping, content_block_stop, unknown → nothing;  error → ProviderError
 *
 * Tool-call indexes count the caller's tool_use blocks from 0, independent of Anthropic's block index.
 */
import { CanonicalChatChunk, CanonicalChunkChoice, FinishReason, ProviderError, SseEvent } from '../types';
import { asCount, asNumber, asRecord, asString, isRecord, JsonRecord, parseJson } from '../http/wire-json';
import { mapAnthropicStreamError } from './anthropic.errors';
import { JSON_OUTPUT_TOOL_NAME } from './anthropic.json-mode';
import {
  AnthropicUsageCounts,
  mapAnthropicStopReason,
  readAnthropicUsage,
  toCanonicalUsage,
} from './anthropic.response';

type BlockInfo = { kind: 'text' | 'thinking' | 'json' | 'other' } | { kind: 'tool'; toolIndex: number };

export interface AnthropicStreamState {
  readonly requestedModel: string;
  readonly created: number;
  id: string;
  /** Anthropic content-block index → what the block is */
  blocks: Map<number, BlockInfo>;
  nextToolIndex: number;
  usage: AnthropicUsageCounts;
  finishReason: FinishReason;
  messageStopped: boolean;
  usageEmitted: boolean;
}

export function createAnthropicStreamState(requestedModel: string, nowMs: number): AnthropicStreamState {
  return {
    requestedModel,
    created: Math.floor(nowMs / 1000),
    id: '',
    blocks: new Map(),
    nextToolIndex: 0,
    usage: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
    finishReason: null,
    messageStopped: false,
    usageEmitted: false,
  };
}

function chunk(state: AnthropicStreamState, choices: CanonicalChunkChoice[]): CanonicalChatChunk {
  return {
    id: state.id,
    object: 'chat.completion.chunk',
    created: state.created,
    model: state.requestedModel,
    choices,
  };
}

function deltaChunk(state: AnthropicStreamState, delta: CanonicalChunkChoice['delta']): CanonicalChatChunk[] {
  return [chunk(state, [{ index: 0, delta, finish_reason: null }])];
}

function usageChunk(state: AnthropicStreamState): CanonicalChatChunk[] {
  if (state.usageEmitted) return [];
  state.usageEmitted = true;
  return [{ ...chunk(state, []), usage: toCanonicalUsage(state.usage) }];
}

function onMessageStart(payload: JsonRecord, state: AnthropicStreamState): CanonicalChatChunk[] {
  const message = asRecord(payload.message);
  state.id = asString(message?.id) ?? state.id;
  state.usage = readAnthropicUsage(message?.usage);
  const opening = deltaChunk(state, { role: 'assistant', content: '' });
  // the input side is final here (Anthropic bills it whatever happens next)
  if (isRecord(message?.usage) && message.usage.input_tokens !== undefined) {
    const { completion_tokens: _out, total_tokens: _total, ...prompt } = toCanonicalUsage(state.usage);
    opening[0].promptUsage = prompt;
  }
  return opening;
}

function onBlockStart(payload: JsonRecord, state: AnthropicStreamState): CanonicalChatChunk[] {
  const index = asNumber(payload.index) ?? state.blocks.size;
  const block = asRecord(payload.content_block);
  switch (block?.type) {
    case 'text': {
      state.blocks.set(index, { kind: 'text' });
      const text = asString(block.text) ?? '';
      return text === '' ? [] : deltaChunk(state, { content: text });
    }
    case 'thinking': {
      state.blocks.set(index, { kind: 'thinking' });
      const thinking = asString(block.thinking) ?? '';
      return thinking === '' ? [] : deltaChunk(state, { reasoning_content: thinking });
    }
    case 'tool_use': {
      const name = asString(block.name) ?? '';
      if (name === JSON_OUTPUT_TOOL_NAME) {
        state.blocks.set(index, { kind: 'json' });
        return [];
      }
      const toolIndex = state.nextToolIndex++;
      state.blocks.set(index, { kind: 'tool', toolIndex });
      return deltaChunk(state, {
        tool_calls: [
          { index: toolIndex, id: asString(block.id) ?? '', type: 'function', function: { name, arguments: '' } },
        ],
      });
    }
    default:
      state.blocks.set(index, { kind: 'other' });
      return [];
  }
}

function onBlockDelta(payload: JsonRecord, state: AnthropicStreamState): CanonicalChatChunk[] {
  const block = state.blocks.get(asNumber(payload.index) ?? -1);
  const delta = asRecord(payload.delta);
  switch (delta?.type) {
    case 'text_delta': {
      const text = asString(delta.text) ?? '';
      return text === '' ? [] : deltaChunk(state, { content: text });
    }
    case 'thinking_delta': {
      const thinking = asString(delta.thinking) ?? '';
      return thinking === '' ? [] : deltaChunk(state, { reasoning_content: thinking });
    }
    case 'input_json_delta': {
      const json = asString(delta.partial_json) ?? '';
      if (json === '' || block === undefined) return [];
      if (block.kind === 'json') return deltaChunk(state, { content: json });
      if (block.kind === 'tool')
        return deltaChunk(state, { tool_calls: [{ index: block.toolIndex, function: { arguments: json } }] });
      return [];
    }
    default:
      return []; // signature_delta, citations_delta, future delta types
  }
}

function onMessageDelta(payload: JsonRecord, state: AnthropicStreamState): CanonicalChatChunk[] {
  const usage = asRecord(payload.usage);
  if (usage) {
    // output_tokens is cumulative; newer API versions repeat the (final) input/cache counts here too
    if (usage.output_tokens !== undefined) state.usage.output = asCount(usage.output_tokens);
    if (usage.input_tokens !== undefined) state.usage.input = asCount(usage.input_tokens);
    if (usage.cache_read_input_tokens !== undefined) state.usage.cacheRead = asCount(usage.cache_read_input_tokens);
    if (usage.cache_creation_input_tokens !== undefined)
      state.usage.cacheWrite = asCount(usage.cache_creation_input_tokens);
    if (usage.cache_creation !== undefined) {
      const oneHour = readAnthropicUsage({
        ...usage,
        cache_creation_input_tokens: state.usage.cacheWrite,
      }).cacheWrite1h;
      state.usage.cacheWrite1h = oneHour;
    }
  }
  const stopReason = asRecord(payload.delta)?.stop_reason;
  if (stopReason === undefined || stopReason === null) return [];
  state.finishReason = mapAnthropicStopReason(stopReason, state.nextToolIndex > 0);
  return [chunk(state, [{ index: 0, delta: {}, finish_reason: state.finishReason }])];
}

export function mapAnthropicStreamEvent(event: SseEvent, state: AnthropicStreamState): CanonicalChatChunk[] {
  const parsed = parseJson(event.data);
  if (!parsed.ok || !isRecord(parsed.value))
    throw new ProviderError('upstream', 'Upstream sent an unreadable stream event');
  const payload = parsed.value;
  switch (asString(payload.type) ?? event.event) {
    case 'message_start':
      return onMessageStart(payload, state);
    case 'content_block_start':
      return onBlockStart(payload, state);
    case 'content_block_delta':
      return onBlockDelta(payload, state);
    case 'message_delta':
      return onMessageDelta(payload, state);
    case 'message_stop':
      state.messageStopped = true;
      return usageChunk(state);
    case 'error':
      throw mapAnthropicStreamError(payload);
    default:
      return []; // ping, content_block_stop, future events
  }
}

/** End of body: usage if message_stop never came but the answer was complete; otherwise the stream was cut. */
export function flushAnthropicStream(state: AnthropicStreamState): CanonicalChatChunk[] {
  if (state.messageStopped) return [];
  if (state.finishReason !== null) return usageChunk(state);
  throw new ProviderError('upstream', 'Upstream stream ended before message_stop');
}
