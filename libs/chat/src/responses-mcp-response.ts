import { errorBody, toApiError } from '@app/common';
import type { ChatMessage } from '@app/providers';
import { costToRub, CostRubDto } from './chat-cost';
import type { ResponseObjectDto } from './dto/responses.dto';
import { McpEventWriter, McpStreamEvent } from './responses-mcp-events';
import { McpLoopResult, McpSession, McpToolLoop } from './responses-mcp-loop';
import {
  hexId,
  OutputItem,
  outputText,
  PreparedResponse,
  responseErrorCode,
  responseObject,
  toResponsesUsage,
} from './responses-output';

type Save = (
  prep: PreparedResponse,
  body: Record<string, unknown>,
  output: OutputItem[],
  tail: ChatMessage[],
) => Promise<void>;

/** The items after the MCP ones: the model's answer (a message) and calls of the caller's own functions. */
function finalItems(r: McpLoopResult): OutputItem[] {
  const out: OutputItem[] = [];
  const f = r.final;
  if (!f) return out;
  const incomplete = f.finishReason === 'length';
  if (f.text !== '' || f.calls.length === 0)
    out.push({
      id: hexId('msg'),
      type: 'message',
      status: incomplete ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [outputText(f.text, f.logprobs)],
    });
  for (const c of f.calls)
    out.push({
      id: hexId('fc'),
      type: 'function_call',
      status: 'completed',
      call_id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    });
  return out;
}

function finish(
  prep: PreparedResponse,
  r: McpLoopResult,
  output: OutputItem[],
): { body: ResponseObjectDto; cost: CostRubDto } {
  const status = r.final?.finishReason === 'length' ? 'incomplete' : 'completed';
  // the charge of every round and every priced tool call; the parts name the model's tokens and
  // fees per call summed over the rounds, and the tool calls
  const cost = costToRub(r.cost, r.chargedMicro, prep.retrievalMicro, r.toolMicro);
  const body = { ...responseObject(prep, r.servedModel, status, output, toResponsesUsage(r.usage)), cost };
  return { body, cost };
}

/** A non-streaming response with remote MCP tools: the whole loop, then the response object. */
export async function mcpComplete(
  loop: McpToolLoop,
  prep: PreparedResponse,
  session: McpSession,
  signal: AbortSignal,
  save: Save,
): Promise<{ body: ResponseObjectDto; cost: CostRubDto; servedModel: string }> {
  const r = await loop.run(prep.chat, session, signal);
  const output: OutputItem[] = [...(prep.fileSearch ? [prep.fileSearch.item] : []), ...r.items, ...finalItems(r)];
  const { body, cost } = finish(prep, r, output);
  await save(prep, body as unknown as Record<string, unknown>, output, r.tail);
  return { body, cost, servedModel: r.servedModel };
}

/** The streamed form: items reported as the loop produces them, response.completed last. */
export async function* mcpEvents(
  loop: McpToolLoop,
  prep: PreparedResponse,
  session: McpSession,
  signal: AbortSignal,
  headers: Record<string, string>,
  save: Save,
): AsyncGenerator<McpStreamEvent, void, undefined> {
  const w = new McpEventWriter();
  const model = prep.chat.model.key;
  const snapshot = responseObject(prep, model, 'in_progress', [], null);
  headers['x-gateway-model'] = model;
  w.emit('response.created', { response: snapshot });
  w.emit('response.in_progress', { response: snapshot });
  if (prep.fileSearch) w.item(prep.fileSearch.item);
  yield* w.take();
  // the loop runs while the events it produces are handed out
  const queue: McpStreamEvent[] = [];
  let wake: (() => void) | null = null;
  const push = () => {
    queue.push(...w.take());
    wake?.();
  };
  let done = false;
  let failure: unknown = null;
  let result: McpLoopResult | null = null;
  void loop
    .run(prep.chat, session, signal, {
      onCallStart: (item) => (w.callStarted(item), push()),
      onItem: (item) => (w.item(item), push()),
    })
    .then((r) => (result = r))
    .catch((err: unknown) => (failure = err))
    .finally(() => {
      done = true;
      wake?.();
    });
  while (!done || queue.length > 0) {
    if (queue.length === 0) await new Promise<void>((r) => (wake = r));
    wake = null;
    yield* queue.splice(0);
  }
  const output = () => w.output.sort((a, b) => a.index - b.index).map((o) => o.item) as unknown as OutputItem[];
  if (failure !== null || !result) {
    const error = errorBody(toApiError(failure).error).error;
    w.emit('error', { code: error.code, message: error.message, param: error.param });
    w.emit('response.failed', {
      response: responseObject(prep, model, 'failed', output(), null, {
        code: responseErrorCode(error),
        message: error.message,
      }),
    });
    yield* w.take();
    return;
  }
  const r: McpLoopResult = result;
  for (const item of finalItems(r)) w.item(item);
  const out = output();
  const { body } = finish(prep, r, out);
  headers['x-gateway-model'] = r.servedModel;
  await save(prep, body as unknown as Record<string, unknown>, out, r.tail);
  w.emit(`response.${body.status}`, { response: body });
  yield* w.take();
}
