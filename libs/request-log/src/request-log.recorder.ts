import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  BackgroundCall,
  BackgroundCalls,
  Clock,
  RequestContext,
  RequestObserver,
  RequestRecorder,
  ToolCallReport,
} from '@app/common';
import { AppConfig } from '@app/config';
import { ModelCatalogService } from '@app/providers';
import { RequestLogEntity } from './entities/request-log.entity';
import { KB_PARAM, isModelRoute } from './model-routes';
import { storedRequestBody, storedResponseBody, textRedacted } from './bodies';
import { capturedResponse, watchModelResponse } from './response-capture';
import { RequestLogSettings, TeamLogSettings } from './request-log.settings';
import { RequestLogWriter } from './request-log.writer';
import { TraceExporter } from './otel/trace-exporter';

interface CallerOnRequest {
  teamId: string;
  apiKeyId: string;
  keyPrefix: string;
  userId?: string;
}

type Body = Record<string, unknown> | undefined;

function str(v: unknown, max: number): string | null {
  return typeof v === 'string' && v !== '' ? v.slice(0, max) : null;
}

/** The User-Agent as stored: credentials a client put in it redacted, at most 512 characters. */
function userAgentOf(v: unknown): string | null {
  const ua = str(v, 2048);
  return ua === null ? null : textRedacted(ua).slice(0, 512);
}

/** The end user a call names: `user` (OpenAI), `user_id`, or `metadata.user_id` (Anthropic). */
function endUserOf(body: Body): string | null {
  if (!body) return null;
  const meta = body.metadata as Record<string, unknown> | undefined;
  return str(body.user, 256) ?? str(body.user_id, 256) ?? str(meta?.user_id, 256);
}

/**
 * Turns each finished model call into a request-log record (and a trace span when export is on):
 * the observer calls `record` when the response ends; the record is built at once from the request,
 * its context and the caller, and queued — nothing here waits for I/O or throws into the request.
 */
@Injectable()
export class RequestLogRecorder implements RequestRecorder, OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('RequestLog');

  constructor(
    private readonly observer: RequestObserver,
    private readonly background: BackgroundCalls,
    private readonly writer: RequestLogWriter,
    private readonly settings: RequestLogSettings,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly catalog: ModelCatalogService,
    private readonly traces: TraceExporter,
  ) {}

  onModuleInit(): void {
    if (!this.config.requestLog.enabled && !this.traces.enabled) return;
    this.observer.useRecorder(this);
    this.background.use(
      (call) => this.recordBackground(call),
      (call) => this.recordTool(call),
    );
  }

  onModuleDestroy(): void {
    this.observer.useRecorder(null);
    this.background.use(null, null);
  }

  /** Watches each model call's response: its first byte when streamed, its bytes for teams at `full`. */
  watch(req: Request, res: Response, ctx: RequestContext): void {
    if (this.config.requestLog.enabled)
      watchModelResponse(req, res, ctx, this.settings, this.config.requestLog.bodyMaxBytes * 8);
  }

  record(req: Request, res: Response, ctx: RequestContext, route: string | null, totalMs: number): void {
    if (!isModelRoute(req.method, route)) return;
    try {
      const teamId = (req as Request & { caller?: CallerOnRequest }).caller?.teamId ?? null;
      const known = teamId ? this.settings.peek(teamId) : this.settings.defaults;
      // a team at `none` costs one map lookup (unless spans are exported)
      if (known?.level === 'none' && !this.traces.enabled) return;
      const entry = this.build(req, res, ctx, route, totalMs);
      const masker = ctx.bodyMasker ?? undefined;
      if (known) this.finish(entry, known, req, res, masker);
      else void this.settings.get(teamId!).then((s) => this.finish(entry, s, req, res, masker));
    } catch (err) {
      this.log.error({ err }, 'request-log record not built');
    }
  }

  private build(req: Request, res: Response, ctx: RequestContext, route: string, totalMs: number): RequestLogEntity {
    const caller = (req as Request & { caller?: CallerOnRequest }).caller;
    const body = (
      req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? req.body : undefined
    ) as Body;
    const now = this.clock.now();
    const latencyMs = Math.round(totalMs);
    const session = caller?.userId !== undefined && caller.keyPrefix === 'session';
    const kbParam = KB_PARAM[route];
    const served = ctx.model;
    const attempts = ctx.attempts > 0 ? ctx.attempts : ctx.upstreamCalls > 0 ? 1 : 0;
    return {
      id: ctx.requestId,
      teamId: caller?.teamId ?? null,
      createdAt: now - latencyMs,
      expiresAt: 0,
      bodiesExpireAt: null,
      method: req.method,
      endpoint: route,
      model: str(body?.model, 200) ?? served,
      servedModel: served,
      provider: ctx.provider ?? (served ? (this.catalog.entry(served)?.provider ?? null) : null),
      attempts,
      fallbackPath: ctx.fallbackPath && ctx.fallbackPath.length > 1 ? JSON.stringify(ctx.fallbackPath) : null,
      status: res.statusCode,
      errorCode: ctx.errorCode ?? (res.writableFinished ? null : 'client_closed'),
      stream: body?.stream === true,
      inputTokens: ctx.promptTokens,
      outputTokens: ctx.completionTokens,
      cacheReadTokens: ctx.cacheReadTokens,
      cacheWriteTokens: ctx.cacheWriteTokens,
      reasoningTokens: ctx.reasoningTokens,
      costMicro: ctx.costMicro,
      fxRate: ctx.fx?.rate ?? null,
      fxDate: ctx.fx?.date ?? null,
      latencyMs,
      ttftMs: ctx.ttftMs,
      apiKeyId: caller && !session ? caller.apiKeyId : null,
      keyPrefix: caller && !session ? caller.keyPrefix.slice(0, 32) : null,
      sessionUserId: session ? caller!.userId! : null,
      endUser: endUserOf(body),
      projectId: str(body?.project_id, 64),
      knowledgeBaseId: kbParam ? str(req.params?.[kbParam], 64) : str(body?.knowledge_base_id, 64),
      clientIp: (req.ip ?? req.socket?.remoteAddress ?? '').slice(0, 64) || null,
      userAgent: userAgentOf(req.headers['user-agent']),
      requestBody: null,
      responseBody: null,
      bodyTruncated: false,
      dataProtection: ctx.dataProtection ? JSON.stringify(ctx.dataProtection) : null,
    };
  }

  /** Exports the span and queues the record at the team's level; never throws (it may run in a promise callback). */
  private finish(
    entry: RequestLogEntity,
    s: TeamLogSettings,
    req: Request | null,
    res: Response | null,
    masker?: (text: string) => string,
  ): void {
    try {
      const traceparent = req?.headers.traceparent;
      this.traces.export(entry, typeof traceparent === 'string' ? traceparent : undefined);
      if (!this.config.requestLog.enabled || s.level === 'none') return;
      entry.expiresAt = entry.createdAt + s.retentionMs;
      if (s.level === 'full' && req && res)
        try {
          this.attachBodies(entry, s, req, res, masker);
        } catch (err) {
          this.log.warn({ err }, 'request-log bodies not stored');
        }
      this.writer.enqueue(entry);
    } catch (err) {
      this.log.error({ err }, 'request-log record not queued');
    }
  }

  /** The bodies at `full`; a request whose personal data was masked is stored masked (as its upstream saw it). */
  private attachBodies(
    entry: RequestLogEntity,
    s: TeamLogSettings,
    req: Request,
    res: Response,
    masker?: (text: string) => string,
  ): void {
    const max = this.config.requestLog.bodyMaxBytes;
    const request = storedRequestBody(req.body, max);
    const captured = capturedResponse(res);
    const response = captured
      ? storedResponseBody(Buffer.concat(captured.chunks).toString('utf8'), captured.truncated, max)
      : null;
    const masked = (t: string | undefined) => (t === undefined ? null : masker ? masker(t) : t);
    entry.requestBody = masked(request?.text);
    entry.responseBody = masked(response?.text);
    entry.bodyTruncated = (request?.truncated ?? false) || (response?.truncated ?? false);
    if (entry.requestBody !== null || entry.responseBody !== null)
      entry.bodiesExpireAt = entry.createdAt + s.bodyRetentionMs;
  }

  /** A model call made by background work (knowledge-base ingestion): recorded without bodies. */
  private recordBackground(call: BackgroundCall): void {
    try {
      const entry: RequestLogEntity = {
        id: call.requestId,
        teamId: call.teamId,
        createdAt: this.clock.now() - Math.round(call.latencyMs),
        expiresAt: 0,
        bodiesExpireAt: null,
        method: 'JOB',
        endpoint: call.endpoint,
        model: call.model,
        servedModel: call.model,
        provider: call.model ? (this.catalog.entry(call.model)?.provider ?? null) : null,
        attempts: 1,
        fallbackPath: null,
        status: call.status,
        errorCode: call.errorCode,
        stream: false,
        inputTokens: call.inputTokens,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costMicro: call.costMicro,
        fxRate: call.fx ? String(call.fx.rate) : null,
        fxDate: call.fx?.date ?? null,
        latencyMs: Math.round(call.latencyMs),
        ttftMs: null,
        apiKeyId: null,
        keyPrefix: null,
        sessionUserId: null,
        endUser: null,
        projectId: null,
        knowledgeBaseId: call.knowledgeBaseId,
        clientIp: null,
        userAgent: null,
        requestBody: null,
        responseBody: null,
        bodyTruncated: false,
      };
      void this.settings.get(call.teamId).then((s) => this.finish(entry, s, null, null));
    } catch (err) {
      this.log.error({ err }, 'request-log record of a background call not built');
    }
  }

  /** A tool call through the MCP gateway (kind `mcp_tool`): its arguments and result only at the team's `full` level. */
  private recordTool(call: ToolCallReport): void {
    try {
      const latencyMs = Math.round(call.latencyMs);
      const entry: RequestLogEntity = {
        id: call.requestId,
        teamId: call.teamId,
        createdAt: this.clock.now() - latencyMs,
        expiresAt: 0,
        bodiesExpireAt: null,
        method: 'POST',
        endpoint: call.endpoint,
        model: null,
        servedModel: null,
        provider: null,
        attempts: 1,
        fallbackPath: null,
        status: call.status,
        errorCode: call.errorCode,
        stream: false,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costMicro: call.costMicro,
        latencyMs,
        ttftMs: null,
        apiKeyId: call.apiKeyId,
        keyPrefix: call.keyPrefix ? call.keyPrefix.slice(0, 32) : null,
        sessionUserId: call.sessionUserId,
        endUser: null,
        projectId: null,
        knowledgeBaseId: null,
        clientIp: call.clientIp ? call.clientIp.slice(0, 64) : null,
        userAgent: userAgentOf(call.userAgent),
        requestBody: null,
        responseBody: null,
        bodyTruncated: false,
        // a tool call is priced in roubles: no exchange rate
        fxRate: null,
        fxDate: null,
        kind: 'mcp_tool',
        mcpServer: call.server.slice(0, 64),
        mcpTool: call.tool.slice(0, 200),
        bytes: call.bytes,
      };
      void this.settings.get(call.teamId).then(
        (s) => {
          if (s.level === 'full' && this.config.requestLog.enabled) {
            const max = this.config.requestLog.bodyMaxBytes;
            const request = storedRequestBody({ arguments: call.arguments ?? {} }, max);
            const response = call.result === undefined ? null : storedRequestBody(call.result, max);
            entry.requestBody = request?.text ?? null;
            entry.responseBody = response?.text ?? null;
            entry.bodyTruncated = (request?.truncated ?? false) || (response?.truncated ?? false);
            if (entry.requestBody !== null || entry.responseBody !== null)
              entry.bodiesExpireAt = entry.createdAt + s.bodyRetentionMs;
          }
          this.finish(entry, s, null, null);
        },
        (err: unknown) => this.log.warn({ err }, 'request-log settings not read'),
      );
    } catch (err) {
      this.log.error({ err }, 'request-log record of a tool call not built');
    }
  }
}
