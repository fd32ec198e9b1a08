/** Embeddings over OpenAI-compatible `POST {baseUrl}/embeddings`, vectors fetched as base64 float32. */
import { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse, ProviderConnection, ProviderError } from '../types';
import { joinUrl } from '../http/urls';
import { asArray, asCount, asNumber, asRecord, isRecord } from '../http/wire-json';
import { openAiHeaders, UpstreamHttpRequest } from './openai.request';

export interface OpenAiEmbeddingBody {
  model: string;
  input: string[];
  encoding_format: 'base64';
  dimensions?: number;
}

export function buildEmbeddingRequest(req: CanonicalEmbeddingRequest, conn: ProviderConnection): UpstreamHttpRequest {
  const body: OpenAiEmbeddingBody = { model: req.model, input: req.input, encoding_format: 'base64' };
  if (req.dimensions !== undefined) body.dimensions = req.dimensions;
  return { url: joinUrl(conn.baseUrl, 'embeddings'), headers: openAiHeaders(conn), body };
}

/** base64 of little-endian float32 values → Float32Array (independent of host endianness and alignment). */
export function decodeBase64Float32(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length % 4 !== 0)
    throw new ProviderError('upstream', 'Upstream embedding is not a whole number of float32 values');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function decodeVector(raw: unknown): Float32Array {
  if (typeof raw === 'string') return decodeBase64Float32(raw);
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'number')) return Float32Array.from(raw);
  throw new ProviderError('upstream', 'Upstream embedding is neither base64 nor a number array');
}

export function mapEmbeddingResponse(body: unknown): CanonicalEmbeddingResponse {
  if (!isRecord(body) || !Array.isArray(body.data))
    throw new ProviderError('upstream', 'Upstream returned an embeddings body without data');
  const items = asArray(body.data).map((raw, position) => {
    const item = asRecord(raw);
    if (!item) throw new ProviderError('upstream', 'Upstream returned a malformed embedding item');
    return { index: asNumber(item.index) ?? position, vector: decodeVector(item.embedding) };
  });
  items.sort((a, b) => a.index - b.index);
  return { vectors: items.map((i) => i.vector), prompt_tokens: asCount(asRecord(body.usage)?.prompt_tokens) };
}
