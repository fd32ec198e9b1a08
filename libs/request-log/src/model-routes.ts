/**
 * The model-call endpoints the request log records (route templates, as Express names them): chat
 * in its three wire formats and the REST form, embeddings, both rerank APIs, images and
 * knowledge-base search. Other routes (usage, files, admin, …) are not model calls.
 */
export const MODEL_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/v1/chat',
  'POST /v1/chat/completions',
  'POST /v1/responses',
  'POST /v1/messages',
  'POST /v1/embeddings',
  'POST /api/v1/embeddings',
  'POST /api/v1/rerank',
  'POST /v1/rerank',
  'POST /v2/rerank',
  'POST /v1/images/generations',
  'POST /api/v1/images/generations',
  'POST /v1/vector_stores/:vector_store_id/search',
  'POST /api/v1/knowledge-bases/:id/search',
]);

/** Routes whose path parameter names the knowledge base searched. */
export const KB_PARAM: Readonly<Record<string, string>> = {
  '/v1/vector_stores/:vector_store_id/search': 'vector_store_id',
  '/api/v1/knowledge-bases/:id/search': 'id',
};

export function isModelRoute(method: string, route: string | null): route is string {
  return route !== null && MODEL_ROUTES.has(`${method} ${route}`);
}
