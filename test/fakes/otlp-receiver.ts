/**
 * An in-test OpenTelemetry collector: receives ExportTraceServiceRequest over OTLP/HTTP (JSON or
 * protobuf body, at /v1/traces) or OTLP/gRPC (TraceService/Export), decodes it and keeps the spans
 * in one normalised shape, so the same assertions hold for every protocol. Protobuf is decoded with
 * protobufjs from the OTLP trace messages below (opentelemetry-proto, v1: the field numbers are the
 * wire contract; the span's events and links are left out and skipped as unknown fields).
 * Modes: `ok` answers success; `fail` refuses every export (HTTP 400 / gRPC INVALID_ARGUMENT, which
 * the exporters do not retry); `hang` never answers.
 */
import * as grpc from '@grpc/grpc-js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
`;
const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

export type OtlpReceiverProtocol = 'http/json' | 'http/protobuf' | 'grpc';
export type OtlpReceiverMode = 'ok' | 'fail' | 'hang';
export type AttrValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttrValue>;
  status: { code: number; message?: string };
  resource: Record<string, AttrValue>;
  scope: string;
}

export interface ReceivedExport {
  protocol: OtlpReceiverProtocol;
  path: string;
  contentType?: string;
  /** the collector token header (HTTP) or metadata entry (gRPC) `x-collector-token` */
  token?: string;
  spans: ReceivedSpan[];
}

/** A decoded OTLP message in the camelCase shape both protobufjs (toObject) and the JSON encoding give. */
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: OtlpKeyValue[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

function valueOf(v: OtlpAnyValue | undefined): AttrValue {
  if (!v) return '';
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.doubleValue ?? '';
}
const attrsOf = (kvs: OtlpKeyValue[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** Spans of a request in one shape; `ids` says whether ids arrived as hex (JSON) or base64 (protobuf toObject). */
function spansOf(req: OtlpRequest, ids: 'hex' | 'base64'): ReceivedSpan[] {
  const hex = (id: string | undefined) =>
    !id ? undefined : ids === 'hex' ? id : Buffer.from(id, 'base64').toString('hex') || undefined;
  return (req.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: hex(s.traceId) ?? '',
        spanId: hex(s.spanId) ?? '',
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        kind: s.kind,
        startTimeUnixNano: BigInt(s.startTimeUnixNano),
        endTimeUnixNano: BigInt(s.endTimeUnixNano),
        attributes: attrsOf(s.attributes),
        status: { code: s.status?.code ?? 0, message: s.status?.message || undefined },
        resource: attrsOf(rs.resource?.attributes),
        scope: ss.scope?.name ?? '',
      })),
    ),
  );
}

function decodeProtobuf(body: Buffer): OtlpRequest {
  const msg = ExportRequest.decode(body);
  return ExportRequest.toObject(msg, { longs: String, bytes: String, defaults: false }) as OtlpRequest;
}

export class OtlpReceiver {
  readonly received: ReceivedExport[] = [];
  private readonly pendingHttp = new Set<() => void>();

  /** the collector's base URL (set once it listens) */
  url = '';
  private stop: () => Promise<void> = async () => undefined;

  private constructor(
    readonly protocol: OtlpReceiverProtocol,
    public mode: OtlpReceiverMode,
  ) {}

  static async start(protocol: OtlpReceiverProtocol, mode: OtlpReceiverMode = 'ok'): Promise<OtlpReceiver> {
    return protocol === 'grpc' ? OtlpReceiver.startGrpc(mode) : OtlpReceiver.startHttp(protocol, mode);
  }

  spans(): ReceivedSpan[] {
    return this.received.flatMap((r) => r.spans);
  }

  close(): Promise<void> {
    for (const release of this.pendingHttp) release();
    return this.stop();
  }

  private static async startHttp(protocol: OtlpReceiverProtocol, mode: OtlpReceiverMode): Promise<OtlpReceiver> {
    const r = new OtlpReceiver(protocol, mode);
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (r.mode === 'hang') {
          const release = () => res.destroy();
          r.pendingHttp.add(release);
          return;
        }
        if (r.mode === 'fail') {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"refused by test"}');
          return;
        }
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const contentType = req.headers['content-type'];
        const json = contentType?.includes('json') ?? false;
        const decoded = json ? (JSON.parse(body.toString('utf8')) as OtlpRequest) : decodeProtobuf(body);
        r.received.push({
          protocol,
          path: req.url ?? '',
          contentType,
          token: req.headers['x-collector-token'] as string | undefined,
          spans: spansOf(decoded, json ? 'hex' : 'base64'),
        });
        if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else
          res
            .writeHead(200, { 'content-type': 'application/x-protobuf' })
            .end(Buffer.from(ExportResponse.encode(ExportResponse.create({})).finish()));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    r.url = `http://127.0.0.1:${port}`;
    r.stop = async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    };
    return r;
  }

  private static async startGrpc(mode: OtlpReceiverMode): Promise<OtlpReceiver> {
    const r = new OtlpReceiver('grpc', mode);
    const server = new grpc.Server();
    const path = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
    const service: grpc.ServiceDefinition = {
      Export: {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: (v: Buffer) => v,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: () => Buffer.from(ExportResponse.encode(ExportResponse.create({})).finish()),
        responseDeserialize: (b: Buffer) => b,
      },
    };
    server.addService(service, {
      Export: (call: grpc.ServerUnaryCall<Buffer, unknown>, done: grpc.sendUnaryData<unknown>) => {
        if (r.mode === 'hang') return;
        if (r.mode === 'fail') return done({ code: grpc.status.INVALID_ARGUMENT, details: 'refused by test' });
        const token = call.metadata.get('x-collector-token')[0];
        r.received.push({
          protocol: 'grpc',
          path,
          token: token === undefined ? undefined : String(token),
          spans: spansOf(decodeProtobuf(call.request), 'base64'),
        });
        done(null, {});
      },
    });
    const port = await new Promise<number>((ok, fail) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : ok(p))),
    );
    r.url = `http://127.0.0.1:${port}`;
    r.stop = async () => server.forceShutdown();
    return r;
  }
}
