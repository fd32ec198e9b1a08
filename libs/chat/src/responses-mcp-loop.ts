import { Injectable, Optional } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type { ChatCost } from '@app/billing';
import { AppConfig } from '@app/config';
import type { CanonicalUsage, ChatMessage, ToolCall, ToolDefinition } from '@app/providers';
import { ChatOutcome, ChatService, PreparedChat } from './chat.service';
import { McpServerHandle, McpToolHost } from './mcp/ports';
import {
  McpApprovalAnswer,
  McpApprovalRequestItem,
  McpCallItem,
  mcpItemId,
  McpListToolsItem,
  McpOutputItem,
  modelToolName,
  needsApproval,
  ResponsesMcpTool,
} from './responses-mcp';

const ENDPOINT = '/v1/responses';

/** The request's MCP servers, resolved and listed: what the model is offered, and under which names. */
export interface McpSession {
  caller: Caller;
  requestId: string;
  servers: { tool: ResponsesMcpTool; handle: McpServerHandle }[];
  listItems: McpListToolsItem[];
  /** the function tools offered to the model */
  definitions: ToolDefinition[];
  /** model function name → server label and tool name */
  names: Map<string, { label: string; tool: string }>;
  /** mcp_call items of approved (or refused) calls answered by this request's input */
  approvedItems: McpCallItem[];
  /** µRUB the tool calls charged (priced registered servers) */
  toolMicro: number;
}

/** What the model produced once it stopped calling MCP tools: the final choice's text and other calls. */
export interface McpFinal {
  text: string;
  calls: ToolCall[];
  logprobs: unknown[];
  finishReason: string | null;
}

/** Streaming hooks: a call about to run, and each item once it is whole. */
export interface McpLoopHooks {
  onCallStart?(item: McpCallItem): Promise<void> | void;
  onItem?(item: McpOutputItem): Promise<void> | void;
}

export interface McpLoopResult {
  /** MCP items in output order (list_tools, calls, approval requests) */
  items: McpOutputItem[];
  final: McpFinal | null;
  /** the turns after the request's history: assistant tool calls and tool results */
  tail: ChatMessage[];
  usage: CanonicalUsage;
  cost: ChatCost;
  /** every round's charge and the priced tool calls' */
  chargedMicro: number;
  /** µRUB the priced tool calls charged (part of chargedMicro) */
  toolMicro: number;
  servedModel: string;
}

/**
 * Remote MCP tools of /v1/responses: the servers are resolved (400s before any call) and listed,
 * their tools offered to the model as function tools, and each model call of them is run against the
 * server (or answered with an approval request) and fed back, round after round, until the model
 * answers or MCP_MAX_TOOL_ROUNDS model calls were made (the last one is not offered tools). Every
 * round is an ordinary chat call, charged as such; priced servers charge each call through the
 * MCP host.
 */
@Injectable()
export class McpToolLoop {
  constructor(
    private readonly chat: ChatService,
    private readonly config: AppConfig,
    @Optional() private readonly host?: McpToolHost,
  ) {}

  /** Resolves every server first (refusals before any call), then lists their tools. */
  async open(caller: Caller, tools: ResponsesMcpTool[], requestId: string): Promise<McpSession> {
    const host = this.host;
    if (!host)
      throw ApiError.badRequest(
        'MCP tools are not available on this gateway.',
        `tools[${tools[0].index}]`,
        'unsupported_value',
      );
    const servers: McpSession['servers'] = [];
    for (const tool of tools) servers.push({ tool, handle: await host.resolve(caller, tool) });
    const session: McpSession = {
      caller,
      requestId,
      servers,
      listItems: [],
      definitions: [],
      names: new Map(),
      approvedItems: [],
      toolMicro: 0,
    };
    for (const { tool, handle } of servers) {
      const item: McpListToolsItem = {
        id: mcpItemId('mcpl'),
        type: 'mcp_list_tools',
        server_label: tool.label,
        tools: [],
      };
      try {
        const listed = await host.listTools(caller, handle);
        for (const t of listed) {
          if (tool.allowedTools && !tool.allowedTools.includes(t.name)) continue;
          item.tools.push({
            name: t.name,
            description: t.description,
            input_schema: t.input_schema,
            annotations: null,
          });
          const name = modelToolName(tool.label, t.name);
          session.names.set(name, { label: tool.label, tool: t.name });
          session.definitions.push({
            type: 'function',
            function: {
              name,
              ...(t.description ? { description: t.description } : {}),
              parameters: t.input_schema,
            },
          });
        }
      } catch (err) {
        item.error = err instanceof Error ? err.message : String(err);
      }
      session.listItems.push(item);
    }
    return session;
  }

  /**
   * Answers the previous response's approval requests: approved calls run now, refused ones tell the
   * model so. Each open request of the previous response is answered (unanswered ones as refused,
   * also when this request has no mcp tools, so the conversation stays well-formed).
   */
  async answerApprovals(
    session: McpSession | undefined,
    previous: ChatMessage[],
    answers: McpApprovalAnswer[],
  ): Promise<ChatMessage[]> {
    const last = [...previous].reverse().find((m) => m.role === 'assistant');
    const answered = new Set(previous.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
    const open = (last?.tool_calls ?? []).filter((c) => c.id.startsWith('mcpr_') && !answered.has(c.id));
    if (!session && answers.length > 0)
      throw ApiError.badRequest(
        'mcp_approval_response items need the mcp tools of the calls they approve in tools.',
        'tools',
      );
    answers.forEach((a, i) => {
      if (!open.some((c) => c.id === a.requestId))
        throw ApiError.badRequest(
          `No open mcp_approval_request ${a.requestId} in the previous response.`,
          `input[${i}].approval_request_id`,
        );
    });
    const out: ChatMessage[] = [];
    for (const call of open) {
      const approve = answers.find((a) => a.requestId === call.id)?.approve === true;
      const target = session?.names.get(call.function.name);
      if (!session || !approve || !target) {
        out.push({ role: 'tool', tool_call_id: call.id, content: 'The user did not approve this tool call.' });
        continue;
      }
      const item = await this.execute(session, target, call.function.arguments, call.id);
      session.approvedItems.push(item);
      out.push(toolMessage(call.id, item));
    }
    return out;
  }

  /** The loop: `prep` is the first round, prepared with the session's tools. */
  async run(
    prep: PreparedChat,
    session: McpSession,
    signal: AbortSignal,
    hooks: McpLoopHooks = {},
  ): Promise<McpLoopResult> {
    const max = this.config.mcp.maxToolRounds;
    const items: McpOutputItem[] = [...session.listItems, ...session.approvedItems];
    for (const item of items) await hooks.onItem?.(item);
    const tail: ChatMessage[] = [];
    const totals = { usage: emptyUsage(), cost: emptyCost(), chargedMicro: 0 };
    let current = prep;
    let served = prep.model.key;
    for (let round = 1; ; round++) {
      const out = await this.chat.complete(current, signal);
      add(totals, out);
      served = out.servedModel.key;
      const choice = out.response.choices[0];
      const text = choice?.message.content ?? '';
      const calls = choice?.message.tool_calls ?? [];
      const mcpCalls = calls.filter((c) => session.names.has(c.function.name));
      const final: McpFinal = {
        text,
        calls,
        logprobs: logprobsOf(choice),
        finishReason: choice?.finish_reason ?? null,
      };
      // the model answered, called one of the caller's own functions, or may call no more tools
      if (mcpCalls.length === 0 || mcpCalls.length < calls.length || round >= max)
        return {
          items,
          final: { ...final, calls: calls.filter((c) => !session.names.has(c.function.name)) },
          tail,
          ...totals,
          chargedMicro: totals.chargedMicro + session.toolMicro,
          toolMicro: session.toolMicro,
          servedModel: served,
        };
      const turn: ToolCall[] = [];
      const results: ChatMessage[] = [];
      let pending = false;
      for (const call of mcpCalls) {
        const target = session.names.get(call.function.name)!;
        const server = session.servers.find((s) => s.tool.label === target.label)!;
        if (needsApproval(server.tool, target.tool)) {
          const item: McpApprovalRequestItem = {
            id: mcpItemId('mcpr'),
            type: 'mcp_approval_request',
            server_label: target.label,
            name: target.tool,
            arguments: call.function.arguments,
          };
          // the stored turn names the call by its approval request, which the next request answers
          turn.push({ ...call, id: item.id });
          items.push(item);
          await hooks.onItem?.(item);
          pending = true;
          continue;
        }
        turn.push(call);
        const item = await this.execute(session, target, call.function.arguments, null, hooks);
        items.push(item);
        await hooks.onItem?.(item);
        results.push(toolMessage(call.id, item));
      }
      tail.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: turn }, ...results);
      if (pending)
        return {
          items,
          final: null,
          tail,
          ...totals,
          chargedMicro: totals.chargedMicro + session.toolMicro,
          toolMicro: session.toolMicro,
          servedModel: served,
        };
      const input = current.input;
      current = await this.chat.prepare({
        ...input,
        messages: [...prep.input.messages, ...tail],
        within: undefined,
        // the last round answers: no more tools are offered
        params: round + 1 >= max ? { ...input.params, tool_choice: 'none' } : input.params,
      });
    }
  }

  private async execute(
    session: McpSession,
    target: { label: string; tool: string },
    args: string,
    approvalRequestId: string | null,
    hooks: McpLoopHooks = {},
  ): Promise<McpCallItem> {
    const item: McpCallItem = {
      id: mcpItemId('mcp'),
      type: 'mcp_call',
      status: 'in_progress',
      server_label: target.label,
      name: target.tool,
      arguments: args,
      output: null,
      error: null,
      approval_request_id: approvalRequestId,
    };
    await hooks.onCallStart?.(item);
    let parsed: unknown;
    try {
      parsed = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      parsed = null;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return {
        ...item,
        status: 'failed',
        error: { type: 'mcp_protocol_error', code: -32602, message: 'The tool arguments are not a JSON object.' },
      };
    const server = session.servers.find((s) => s.tool.label === target.label)!;
    const out = await this.host!.callTool(
      session.caller,
      server.handle,
      target.tool,
      parsed as Record<string, unknown>,
      {
        requestId: session.requestId,
        endpoint: ENDPOINT,
      },
    );
    session.toolMicro += out.costMicro ?? 0;
    return { ...item, status: out.error === null ? 'completed' : 'failed', output: out.output, error: out.error };
  }
}

function toolMessage(callId: string, item: McpCallItem): ChatMessage {
  const e = item.error;
  if (e === null) return { role: 'tool', tool_call_id: callId, content: item.output ?? '' };
  const detail = e.type === 'mcp_tool_execution_error' ? JSON.stringify(e.content) : e.message;
  return { role: 'tool', tool_call_id: callId, content: `Error: ${detail}` };
}

function logprobsOf(choice: { logprobs?: unknown } | undefined): unknown[] {
  const content = (choice?.logprobs as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

function emptyUsage(): CanonicalUsage {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
}

function emptyCost(): ChatCost {
  return { inputMicro: 0, outputMicro: 0, imageMicro: null, cacheMicro: null, totalMicro: 0 };
}

/** Each round's usage, cost parts (its fee per call too) and charge add up to the response's. */
function add(t: { usage: CanonicalUsage; cost: ChatCost; chargedMicro: number }, out: ChatOutcome): void {
  const u = out.usage;
  t.usage.prompt_tokens += u.prompt_tokens;
  t.usage.completion_tokens += u.completion_tokens;
  t.usage.total_tokens += u.total_tokens;
  t.usage.cache_read_tokens += u.cache_read_tokens;
  t.usage.cache_write_tokens += u.cache_write_tokens;
  t.usage.reasoning_tokens = (t.usage.reasoning_tokens ?? 0) + (u.reasoning_tokens ?? 0);
  const c = out.cost;
  t.cost.inputMicro += c.inputMicro;
  t.cost.outputMicro += c.outputMicro;
  t.cost.totalMicro += c.totalMicro;
  if (c.imageMicro !== null) t.cost.imageMicro = (t.cost.imageMicro ?? 0) + c.imageMicro;
  if (c.cacheMicro !== null) t.cost.cacheMicro = (t.cost.cacheMicro ?? 0) + c.cacheMicro;
  // the model's fee per call, once per round
  if (c.requestMicro !== undefined) t.cost.requestMicro = (t.cost.requestMicro ?? 0) + c.requestMicro;
  t.chargedMicro += out.chargedMicro;
}
