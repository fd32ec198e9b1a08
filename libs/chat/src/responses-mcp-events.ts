import type { ResponseStreamEventDto } from './dto/responses.dto';
import type { McpCallItem, McpOutputItem } from './responses-mcp';

/** One Responses stream event: `event: <type>`, data `{type, sequence_number, …}`. */
export interface McpStreamEvent {
  event: string;
  data: ResponseStreamEventDto;
}

type Payload = Record<string, unknown>;

/**
 * The Responses events of a response with remote MCP tools, as OpenAI's API sends them: per item
 * output_item.added … output_item.done, with response.mcp_list_tools.in_progress / completed
 * (failed), response.mcp_call.in_progress, mcp_call_arguments.delta / done, response.mcp_call.completed
 * (failed) in between; messages and function calls as for any response. Each model round is
 * answered whole, so the text and arguments come as one delta each.
 */
export class McpEventWriter {
  private seq = 0;
  private next = 0;
  private readonly open = new Map<string, number>();
  readonly output: { index: number; item: Record<string, unknown> }[] = [];
  private out: McpStreamEvent[] = [];

  emit(type: string, payload: Payload): void {
    this.out.push({ event: type, data: { type, sequence_number: this.seq++, ...payload } as ResponseStreamEventDto });
  }

  take(): McpStreamEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  /** A call about to run: its item added, in progress, with its arguments. */
  callStarted(item: McpCallItem): void {
    const index = this.next++;
    this.open.set(item.id, index);
    const at = { item_id: item.id, output_index: index };
    this.emit('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } });
    this.emit('response.mcp_call.in_progress', at);
    this.emit('response.mcp_call_arguments.delta', { ...at, delta: item.arguments });
    this.emit('response.mcp_call_arguments.done', { ...at, arguments: item.arguments });
  }

  /** An item that is whole (a started call, or one reported at once). */
  item(item: McpOutputItem | object): void {
    const it = item as unknown as Record<string, unknown> & { id: string; type: string };
    const started = this.open.get(it.id);
    const index = started ?? this.next++;
    const at = { item_id: it.id, output_index: index };
    if (started === undefined) {
      this.emit('response.output_item.added', { output_index: index, item: added(it) });
      if (it.type === 'mcp_list_tools') this.emit('response.mcp_list_tools.in_progress', at);
      if (it.type === 'mcp_call') {
        this.emit('response.mcp_call.in_progress', at);
        this.emit('response.mcp_call_arguments.delta', { ...at, delta: it.arguments });
        this.emit('response.mcp_call_arguments.done', { ...at, arguments: it.arguments });
      }
      if (it.type === 'message') this.messageEvents(it, at);
      if (it.type === 'function_call') {
        this.emit('response.function_call_arguments.delta', { ...at, delta: it.arguments });
        this.emit('response.function_call_arguments.done', { ...at, name: it.name, arguments: it.arguments });
      }
    }
    this.open.delete(it.id);
    if (it.type === 'mcp_list_tools')
      this.emit(it.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', at);
    if (it.type === 'mcp_call')
      this.emit(it.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', at);
    this.output.push({ index, item: it });
    this.emit('response.output_item.done', { output_index: index, item: it });
  }

  private messageEvents(it: Record<string, unknown>, at: { item_id: string; output_index: number }): void {
    const part = (it.content as Record<string, unknown>[])[0];
    const at0 = { ...at, content_index: 0 };
    this.emit('response.content_part.added', { ...at0, part: { ...part, text: '', annotations: [], logprobs: [] } });
    this.emit('response.output_text.delta', { ...at0, delta: part.text, logprobs: part.logprobs ?? [] });
    this.emit('response.output_text.done', { ...at0, text: part.text, logprobs: part.logprobs ?? [] });
    this.emit('response.content_part.done', { ...at0, part });
  }
}

/** The item as output_item.added shows it: in progress, without what it produces. */
function added(it: Record<string, unknown> & { type: string }): Record<string, unknown> {
  if (it.type === 'mcp_list_tools') return { ...it, tools: [], error: null };
  if (it.type === 'mcp_call') return { ...it, status: 'in_progress', arguments: '', output: null, error: null };
  if (it.type === 'message') return { ...it, status: 'in_progress', content: [] };
  if (it.type === 'function_call') return { ...it, status: 'in_progress', arguments: '' };
  return it;
}
