import type { ErrorBody } from '@app/common';
import type { CanonicalChatChunk, FinishReason } from '@app/providers';
import type { CostRubDto } from './chat-cost';
import type { ResponseStreamEventDto } from './dto/responses.dto';
import { fileCitations } from './responses-file-search';
import {
  hexId,
  ItemStatus,
  logprobsOf,
  OutputItem,
  outputText,
  PreparedResponse,
  responseErrorCode,
  responseObject,
  ResponsesStreamEvent,
  ResponsesUsage,
} from './responses-output';

interface OpenMessage {
  outputIndex: number;
  id: string;
  text: string;
  /** token log probabilities so far (with top_logprobs) */
  logprobs: unknown[];
}

interface OpenCall {
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  args: string;
}

/**
 * Canonical chat chunks → Responses events, each `event: <type>` with a `sequence_number`:
 * response.created, response.in_progress, then per output item output_item.added, (message)
 * content_part.added, output_text.delta…, output_text.done, content_part.done, (function call)
 * function_call_arguments.delta…, function_call_arguments.done, and output_item.done; finally
 * response.completed (response.incomplete when the output hit max_output_tokens).
 */
export class ResponseEventStream {
  private seq = 0;
  private started = false;
  private nextIndex = 0;
  private message: OpenMessage | null = null;
  private readonly calls = new Map<number, OpenCall>();
  private readonly items: { index: number; item: OutputItem }[] = [];
  private finishReason: FinishReason = null;
  /** the model that serves: the first chunk names it (a fallback may serve) */
  private model: string;

  /** events produced by the current call, handed back by it */
  private out: ResponsesStreamEvent[] = [];

  constructor(private readonly prep: PreparedResponse) {
    this.model = prep.chat.model.key;
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** the catalog key of the model that serves (named in every `response` object) */
  get servedModel(): string {
    return this.model;
  }

  /** The events one chat chunk makes (response.created and response.in_progress first). */
  chunk(chunk: CanonicalChatChunk): ResponsesStreamEvent[] {
    if (!this.started) this.model = chunk.model;
    this.begin();
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return this.take();
    const text = choice.delta.content ?? '';
    if (text !== '') {
      const m = this.openMessage();
      m.text += text;
      const logprobs = logprobsOf(choice);
      m.logprobs.push(...logprobs);
      this.emit('response.output_text.delta', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        delta: text,
        logprobs,
      });
    }
    for (const t of choice.delta.tool_calls ?? []) {
      let call = this.calls.get(t.index);
      if (!call) {
        this.closeMessage();
        call = {
          outputIndex: this.nextIndex++,
          id: hexId('fc'),
          callId: t.id ?? hexId('call'),
          name: t.function?.name ?? '',
          args: '',
        };
        this.calls.set(t.index, call);
        this.emit('response.output_item.added', {
          output_index: call.outputIndex,
          item: this.callItem(call, 'in_progress'),
        });
      }
      const delta = t.function?.arguments ?? '';
      if (delta !== '') {
        call.args += delta;
        this.emit('response.function_call_arguments.delta', {
          item_id: call.id,
          output_index: call.outputIndex,
          delta,
        });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return this.take();
  }

  /** The closing events: open items done, then response.completed (or response.incomplete) with usage and cost. */
  finish(usage: ResponsesUsage, cost: CostRubDto, servedModel: string): ResponsesStreamEvent[] {
    if (!this.started) this.model = servedModel;
    this.begin();
    if (this.nextIndex === 0) this.openMessage(); // an empty answer is still one (empty) message
    this.closeMessage();
    for (const call of [...this.calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      this.emit('response.function_call_arguments.done', {
        item_id: call.id,
        output_index: call.outputIndex,
        name: call.name,
        arguments: call.args,
      });
      const item = this.callItem(call, 'completed');
      this.items.push({ index: call.outputIndex, item });
      this.emit('response.output_item.done', { output_index: call.outputIndex, item });
    }
    this.calls.clear();
    const status = this.finishReason === 'length' ? 'incomplete' : 'completed';
    this.emit(`response.${status}`, {
      response: { ...responseObject(this.prep, this.model, status, this.output(), usage), cost },
    });
    return this.take();
  }

  /** An upstream failure after the stream started: `error`, then `response.failed`. */
  fail(error: ErrorBody['error']): ResponsesStreamEvent[] {
    this.begin();
    this.emit('error', { code: error.code, message: error.message, param: error.param });
    this.emit('response.failed', {
      response: responseObject(this.prep, this.model, 'failed', this.output(), null, {
        code: responseErrorCode(error),
        message: error.message,
      }),
    });
    return this.take();
  }

  private output(): OutputItem[] {
    return [...this.items].sort((a, b) => a.index - b.index).map((x) => x.item);
  }

  private take(): ResponsesStreamEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    const snapshot = responseObject(this.prep, this.model, 'in_progress', [], null);
    this.emit('response.created', { response: snapshot });
    this.emit('response.in_progress', { response: snapshot });
    this.fileSearchEvents();
  }

  /** The file search ran before the model was called: its item is reported whole, first. */
  private fileSearchEvents(): void {
    const run = this.prep.fileSearch;
    if (!run) return;
    const index = this.nextIndex++;
    const at = { output_index: index, item_id: run.item.id };
    this.emit('response.output_item.added', {
      output_index: index,
      item: { ...run.item, status: 'in_progress', results: null },
    });
    this.emit('response.file_search_call.in_progress', at);
    this.emit('response.file_search_call.searching', at);
    this.emit('response.file_search_call.completed', at);
    this.items.push({ index, item: run.item });
    this.emit('response.output_item.done', { output_index: index, item: run.item });
  }

  private openMessage(): OpenMessage {
    if (this.message) return this.message;
    const m: OpenMessage = { outputIndex: this.nextIndex++, id: hexId('msg'), text: '', logprobs: [] };
    this.message = m;
    this.emit('response.output_item.added', {
      output_index: m.outputIndex,
      item: { id: m.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    this.emit('response.content_part.added', {
      item_id: m.id,
      output_index: m.outputIndex,
      content_index: 0,
      part: outputText(''),
    });
    return m;
  }

  private closeMessage(): void {
    const m = this.message;
    if (!m) return;
    this.message = null;
    const annotations = fileCitations(m.text, this.prep.fileSearch);
    annotations.forEach((annotation, i) =>
      this.emit('response.output_text.annotation.added', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        annotation_index: i,
        annotation,
      }),
    );
    const part = outputText(m.text, m.logprobs, annotations);
    this.emit('response.output_text.done', {
      item_id: m.id,
      output_index: m.outputIndex,
      content_index: 0,
      text: m.text,
      logprobs: m.logprobs,
    });
    this.emit('response.content_part.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, part });
    const item: OutputItem = {
      id: m.id,
      type: 'message',
      status: this.finishReason === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [part],
    };
    this.items.push({ index: m.outputIndex, item });
    this.emit('response.output_item.done', { output_index: m.outputIndex, item });
  }

  private callItem(call: OpenCall, status: ItemStatus): OutputItem {
    return {
      id: call.id,
      type: 'function_call',
      status,
      call_id: call.callId,
      name: call.name,
      arguments: status === 'completed' ? call.args : '',
    };
  }

  private emit(type: string, payload: Omit<ResponseStreamEventDto, 'type' | 'sequence_number'>): void {
    this.out.push({ event: type, data: { type, sequence_number: this.seq++, ...payload } });
  }
}
