import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export interface FakeMcpOptions {
  /** streamable_http (default): POST /mcp; sse: GET /sse + POST /messages */
  transport?: 'streamable_http' | 'sse';
  /** every request must carry this header with this value (401 otherwise) */
  requireHeader?: { name: string; value: string };
  /** the tools' name prefix, to tell servers apart */
  label?: string;
}

/**
 * An MCP server inside the test, built with the official SDK: tools `echo` (text + structured
 * content), `image` (an image result), `slow` (waits `ms`, reporting progress when asked), `fail`
 * (a tool error: isError) and `whoami` (the Authorization header it received). Records the headers
 * and JSON-RPC methods of every HTTP request it gets.
 */
export class FakeMcpServer {
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders; rpc: string[] }[] = [];
  private readonly sse = new Map<string, SSEServerTransport>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    private readonly opts: FakeMcpOptions,
  ) {}

  static async start(opts: FakeMcpOptions = {}): Promise<FakeMcpServer> {
    const ref: { self?: FakeMcpServer } = {};
    const server = createServer((req, res) => void ref.self!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    ref.self = new FakeMcpServer(server, `http://127.0.0.1:${port}`, opts);
    return ref.self;
  }

  /** The URL to register: /mcp (Streamable HTTP) or /sse. */
  get url(): string {
    return `${this.baseUrl}${this.opts.transport === 'sse' ? '/sse' : '/mcp'}`;
  }

  /** How many tools/call requests reached the server. */
  get toolCalls(): number {
    return this.requests.reduce((n, r) => n + r.rpc.filter((m) => m === 'tools/call').length, 0);
  }

  reset(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    for (const t of this.sse.values()) await t.close().catch(() => undefined);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private build(): McpServer {
    const mcp = new McpServer({ name: this.opts.label ?? 'fake-mcp', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      {
        description: 'Echoes the text',
        inputSchema: { text: z.string() },
        outputSchema: { echoed: z.string() },
      },
      ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }], structuredContent: { echoed: text } }),
    );
    mcp.registerTool('image', { description: 'A tiny image' }, () => ({
      content: [
        { type: 'text', text: 'one pixel' },
        { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
      ],
    }));
    mcp.registerTool(
      'slow',
      { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } },
      async ({ ms }, extra) => {
        const token = extra._meta?.progressToken;
        const steps = 4;
        for (let i = 1; i <= steps; i++) {
          await new Promise((r) => setTimeout(r, ms / steps));
          if (token !== undefined)
            await extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: i, total: steps },
              })
              .catch(() => undefined);
        }
        return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
      },
    );
    mcp.registerTool('fail', { description: 'Always fails' }, () => {
      throw new Error('the tool broke');
    });
    mcp.registerTool('whoami', { description: 'The Authorization header received' }, (extra) => ({
      content: [{ type: 'text', text: String(extra.requestInfo?.headers.authorization ?? '') }],
    }));
    return mcp;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const rpc = (Array.isArray(body) ? body : [body])
      .map((m) => (m && typeof m === 'object' ? (m as { method?: unknown }).method : undefined))
      .filter((m): m is string => typeof m === 'string');
    const path = (req.url ?? '').split('?')[0];
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, rpc });
    const need = this.opts.requireHeader;
    if (need && req.headers[need.name.toLowerCase()] !== need.value) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    try {
      if (this.opts.transport === 'sse') await this.handleSse(req, res, path, body);
      else if (req.method !== 'POST') {
        // stateless: no standalone stream to open, no session to end
        res.writeHead(405, { allow: 'POST' }).end();
      } else {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        const mcp = this.build();
        res.on('close', () => void mcp.close().catch(() => undefined));
        await mcp.connect(transport);
        await transport.handleRequest(req, res, body);
      }
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  }

  private async handleSse(req: IncomingMessage, res: ServerResponse, path: string, body: unknown): Promise<void> {
    if (req.method === 'GET' && path === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      this.sse.set(transport.sessionId, transport);
      res.on('close', () => this.sse.delete(transport.sessionId));
      await this.build().connect(transport);
      return;
    }
    const id = new URL(req.url ?? '', this.baseUrl).searchParams.get('sessionId') ?? '';
    const transport = this.sse.get(id);
    if (req.method !== 'POST' || path !== '/messages' || !transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handlePostMessage(req, res, body);
  }
}
