import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtelEnv } from '@app/config';

/**
 * The SDK's OTLP span exporter for the configured protocol: OTLP/HTTP with protobuf (the
 * specification's default) or JSON bodies, or OTLP/gRPC. Everything it needs is passed in from the
 * gateway's configuration, so the exporter and the rest of the gateway read the same values.
 */
export function createOtlpExporter(o: OtelEnv & { endpoint: string }): SpanExporter {
  const compression = o.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE;
  const common = { url: o.endpoint, timeoutMillis: o.exportTimeoutMs, compression };
  switch (o.protocol) {
    case 'grpc': {
      const metadata = new Metadata();
      for (const [k, v] of Object.entries(o.headers)) metadata.set(k, v);
      return new GrpcTraceExporter({ ...common, metadata });
    }
    case 'http/json':
      return new JsonTraceExporter({ ...common, headers: o.headers });
    case 'http/protobuf':
      return new ProtobufTraceExporter({ ...common, headers: o.headers });
  }
}
