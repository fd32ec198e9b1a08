import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, isSafeFetchError, microToRub, newId, rubToMicro, SafeFetcher } from '@app/common';
import { McpServerEntity } from './entities/mcp-server.entity';
import {
  CreateMcpServerDto,
  McpServerDto,
  McpServerListDto,
  McpToolDto,
  McpToolListDto,
  UpdateMcpServerDto,
} from './dto/mcp-servers.dto';
import { McpSecrets } from './mcp-secrets';
import { McpServersRepository } from './mcp-servers.repository';
import { McpTarget, McpToolInfo, McpTransportKind, McpUpstream } from './mcp-upstream';
import { gatewayToolName } from './tool-patterns';

/** RFC 9110 token; hop-by-hop and framing headers are the transport's own. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** What an HTTP field value cannot hold: control characters (but tab) and anything past Latin-1. */
const FIELD_VALUE_INVALID = /[^\t\x20-\x7e\x80-\xff]/;
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 8192;

/**
 * A team's MCP server registry: create, edit, delete (audited), the tools read from each server,
 * and the targets (URL, transport, opened headers) the gateway calls. URLs pass the SSRF guard when
 * they are stored and again on every connection.
 */
@Injectable()
export class McpServersService {
  private readonly logger = new Logger('McpServers');

  constructor(
    private readonly repo: McpServersRepository,
    private readonly secrets: McpSecrets,
    private readonly upstream: McpUpstream,
    private readonly fetcher: SafeFetcher,
    private readonly clock: Clock,
  ) {}

  async create(teamId: string, body: CreateMcpServerDto): Promise<McpServerDto> {
    await this.assertUrl(body.url);
    const now = this.clock.now();
    const row: McpServerEntity = {
      id: `mcp_${newId().replace(/-/g, '')}`,
      teamId,
      name: body.name,
      url: body.url,
      transport: body.transport ?? 'streamable_http',
      headers: await this.sealHeaders(body.headers ?? {}),
      description: body.description ?? null,
      pricePerCallMicro: rubToMicro(body.price_per_call_rub ?? 0),
      status: 'unknown',
      statusError: null,
      tools: null,
      toolsRefreshedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.repo.insert(row))) throw nameTaken(body.name);
    return toDto(await this.refreshRow(row));
  }

  async list(teamId: string): Promise<McpServerListDto> {
    return { object: 'list', data: (await this.repo.list(teamId)).map(toDto) };
  }

  async get(teamId: string, id: string): Promise<McpServerDto> {
    return toDto(await this.row(teamId, id));
  }

  async update(teamId: string, id: string, body: UpdateMcpServerDto): Promise<McpServerDto> {
    if (body.url !== undefined) await this.assertUrl(body.url);
    const patch: Partial<McpServerEntity> = { updatedAt: this.clock.now() };
    if (body.name !== undefined) patch.name = body.name;
    if (body.url !== undefined) patch.url = body.url;
    if (body.transport !== undefined) patch.transport = body.transport;
    if (body.headers !== undefined) {
      // a null value keeps the stored value of that header (values are never returned, so an editor
      // that changes one header names the others without knowing them)
      const keeps = Object.values(body.headers).some((v) => v === null);
      const stored = keeps ? (JSON.parse((await this.row(teamId, id)).headers) as Record<string, string>) : {};
      patch.headers = await this.sealHeaders(body.headers, stored);
    }
    if (body.description !== undefined) patch.description = body.description;
    if (body.price_per_call_rub !== undefined) patch.pricePerCallMicro = rubToMicro(body.price_per_call_rub);
    const out = await this.repo.update(teamId, id, patch);
    if (out === null) throw notFound(id);
    if (out === 'name_taken') throw nameTaken(body.name!);
    // where or how it is reached changed: its tools are read again
    const reach = body.url !== undefined || body.transport !== undefined || body.headers !== undefined;
    return toDto(reach ? await this.refreshRow(out) : out);
  }

  async remove(teamId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(teamId, id))) throw notFound(id);
  }

  async refresh(teamId: string, id: string): Promise<McpServerDto> {
    return toDto(await this.refreshRow(await this.row(teamId, id)));
  }

  async tools(teamId: string, id: string): Promise<McpToolListDto> {
    const row = await this.row(teamId, id);
    return { object: 'list', data: toolsOf(row).map((t) => toolDto(row.name, t)) };
  }

  /** The team's servers with their stored tools (the gateway's view; no secrets opened). */
  servers(teamId: string): Promise<McpServerEntity[]> {
    return this.repo.list(teamId);
  }

  findByName(teamId: string, name: string): Promise<McpServerEntity | null> {
    return this.repo.findByName(teamId, name);
  }

  findById(teamId: string, id: string): Promise<McpServerEntity | null> {
    return this.repo.find(teamId, id);
  }

  /** Where and how to call a stored server, its headers opened. */
  async target(row: McpServerEntity): Promise<McpTarget> {
    const sealed = JSON.parse(row.headers) as Record<string, string>;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(sealed)) headers[k] = await this.secrets.open(v);
    return { name: row.name, url: row.url, transport: row.transport as McpTransportKind, headers };
  }

  /** Reads the server's tools now and stores them with its status (error: why it could not be read). */
  private async refreshRow(row: McpServerEntity): Promise<McpServerEntity> {
    const now = this.clock.now();
    let state: Pick<McpServerEntity, 'status' | 'statusError' | 'tools' | 'toolsRefreshedAt' | 'updatedAt'>;
    try {
      const tools = await this.upstream.listTools(await this.target(row));
      state = { status: 'ok', statusError: null, tools: JSON.stringify(tools), toolsRefreshedAt: now, updatedAt: now };
    } catch (err) {
      this.logger.warn({ server: row.name, err: (err as Error).message }, 'MCP server tools not read');
      state = {
        status: 'error',
        statusError: (err as Error).message.slice(0, 1000),
        tools: row.tools,
        toolsRefreshedAt: row.toolsRefreshedAt,
        updatedAt: now,
      };
    }
    await this.repo.setTools(row.teamId, row.id, state);
    return { ...row, ...state };
  }

  private async row(teamId: string, id: string): Promise<McpServerEntity> {
    const row = await this.repo.find(teamId, id);
    if (!row) throw notFound(id);
    return row;
  }

  private async assertUrl(url: string): Promise<void> {
    try {
      await this.fetcher.vetUrl(url);
    } catch (err) {
      if (isSafeFetchError(err))
        throw ApiError.badRequest(`The server URL is refused: ${err.message}`, 'url', `url_${err.code}`);
      throw err;
    }
  }

  /** Seals the header values; a null value keeps the sealed value in `stored` (update only). */
  private async sealHeaders(headers: Record<string, unknown>, stored: Record<string, string> = {}): Promise<string> {
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) throw ApiError.badRequest(`At most ${MAX_HEADERS} headers.`, 'headers');
    const sealed: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase()))
        throw ApiError.badRequest(`'${name}' cannot be a server header.`, 'headers');
      if (value === null && Object.hasOwn(stored, name)) {
        sealed[name] = stored[name];
        continue;
      }
      if (value === null)
        throw ApiError.badRequest(`Header '${name}' is not stored, so its value cannot be kept (null).`, 'headers');
      // an HTTP field value (RFC 9110): visible ASCII, spaces, tabs and Latin-1 bytes; anything else
      // could be stored but never sent, and the server would only ever show status `error`
      if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE || FIELD_VALUE_INVALID.test(value))
        throw ApiError.badRequest(
          `The value of header '${name}' must be a string of at most ${MAX_HEADER_VALUE} characters on one line, in ASCII or Latin-1.`,
          'headers',
        );
      sealed[name] = await this.secrets.seal(value);
    }
    return JSON.stringify(sealed);
  }
}

export function toolsOf(row: McpServerEntity): McpToolInfo[] {
  if (!row.tools) return [];
  const v: unknown = JSON.parse(row.tools);
  return Array.isArray(v) ? (v as McpToolInfo[]) : [];
}

function toolDto(server: string, t: McpToolInfo): McpToolDto {
  return {
    name: t.name,
    gateway_name: gatewayToolName(server, t.name),
    description: t.description,
    input_schema: t.input_schema,
  };
}

function toDto(r: McpServerEntity): McpServerDto {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    transport: r.transport,
    status: r.status,
    status_error: r.statusError,
    description: r.description,
    price_per_call_rub: microToRub(r.pricePerCallMicro),
    header_names: Object.keys(JSON.parse(r.headers) as Record<string, string>),
    tool_count: toolsOf(r).length,
    tools_refreshed_at: r.toolsRefreshedAt === null ? null : new Date(r.toolsRefreshedAt).toISOString(),
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

function notFound(id: string): ApiError {
  return ApiError.notFound(`MCP server ${id} not found.`, 'mcp_server_not_found', 'id');
}

function nameTaken(name: string): ApiError {
  return new ApiError(
    409,
    'invalid_request_error',
    `The team already has an MCP server named '${name}'.`,
    'mcp_server_name_taken',
    'name',
  );
}
