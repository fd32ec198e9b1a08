/** GigaChat `POST {base}/embeddings` (models `Embeddings`, `EmbeddingsGigaR`): vectors as number arrays, usage per item. */
import { joinUrl } from '../http/urls';
import { asArray, asCount, asNumber, asRecord, isRecord } from '../http/wire-json';
import { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse, ProviderError } from '../types';

export function buildGigaChatEmbeddingRequest(
  req: CanonicalEmbeddingRequest,
  baseUrl: string,
  accessToken: string,
): { url: string; headers: Record<string, string>; body: { model: string; input: string[] } } {
  return {
    url: joinUrl(baseUrl, 'embeddings'),
    headers: { authorization: `Bearer ${accessToken}` },
    body: { model: req.model, input: req.input },
  };
}

/** `{data:[{embedding:[…], index, usage:{prompt_tokens}}]}`: the tokens are the sum over the items. */
export function mapGigaChatEmbeddingResponse(body: unknown): CanonicalEmbeddingResponse {
  if (!isRecord(body) || !Array.isArray(body.data))
    throw new ProviderError('upstream', 'GigaChat returned an embeddings body without data');
  let tokens = asCount(asRecord(body.usage)?.prompt_tokens);
  const perItem = tokens === 0;
  const items = asArray(body.data).map((raw, position) => {
    const item = asRecord(raw);
    const v = item?.embedding;
    if (!item || !Array.isArray(v) || !v.every((x) => typeof x === 'number'))
      throw new ProviderError('upstream', 'GigaChat returned a malformed embedding item');
    if (perItem) tokens += asCount(asRecord(item.usage)?.prompt_tokens);
    return { index: asNumber(item.index) ?? position, vector: Float32Array.from(v as number[]) };
  });
  items.sort((a, b) => a.index - b.index);
  return { vectors: items.map((i) => i.vector), prompt_tokens: tokens };
}
