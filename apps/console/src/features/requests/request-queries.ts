import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components, operations } from '../../api/schema';
import { useAuth } from '../../auth/auth-context';

export type RequestRecord = components['schemas']['RequestLogRecordDto'];
export type RequestDetail = components['schemas']['RequestLogDetailDto'];
export type RequestFilters = NonNullable<operations['RequestLogController_list']['parameters']['query']>;
export type StatusFilter = NonNullable<RequestFilters['status']>;

/** Filter values as the page holds them (empty strings for "any"), turned into the API's query. */
export interface FilterForm {
  from: string;
  to: string;
  status: StatusFilter | null;
  model: string;
  endpoint: string;
  apiKeyId: string | null;
  user: string;
  minCost: number | string;
}

export const emptyFilters: FilterForm = {
  from: '',
  to: '',
  status: null,
  model: '',
  endpoint: '',
  apiKeyId: null,
  user: '',
  minCost: '',
};

/** Dates are whole UTC days: `to` includes its day (the API's `to` is exclusive). */
export function toQuery(f: FilterForm): RequestFilters {
  const q: RequestFilters = {};
  if (f.from) q.from = `${f.from}T00:00:00.000Z`;
  if (f.to) q.to = new Date(Date.parse(`${f.to}T00:00:00.000Z`) + 86_400_000).toISOString();
  if (f.status) q.status = f.status;
  if (f.model.trim()) q.model = f.model.trim();
  if (f.endpoint.trim()) q.endpoint = f.endpoint.trim();
  if (f.apiKeyId) q.api_key_id = f.apiKeyId;
  if (f.user.trim()) q.user = f.user.trim();
  if (f.minCost !== '' && Number(f.minCost) > 0) q.min_cost_rub = Number(f.minCost);
  return q;
}

/** The request log's pages, newest first; `fetchNextPage` follows `next_cursor`. */
export function useRequestLog(query: RequestFilters, limit = 50) {
  const { teamId } = useAuth();
  return useInfiniteQuery({
    queryKey: ['requests', teamId, query, limit],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(await api.GET('/api/v1/requests', { params: { query: { ...query, limit, cursor: pageParam } } })),
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
  });
}

export function useRequestDetail(id: string | null) {
  const { teamId } = useAuth();
  return useQuery({
    queryKey: ['request', teamId, id],
    queryFn: async () => unwrap(await api.GET('/api/v1/requests/{id}', { params: { path: { id: id ?? '' } } })),
    enabled: !!id,
  });
}

/** The CSV export of the same filters (the server's file, up to 10 000 rows). */
export async function exportCsv(query: RequestFilters): Promise<Blob> {
  const res = await api.GET('/api/v1/requests/export', {
    params: { query: { ...query, format: 'csv', limit: 10_000 } },
    parseAs: 'blob',
  });
  return unwrap(res as { data?: Blob; error?: unknown; response: Response });
}

export type AttemptStep = { model: string; outcome: 'fell_back' | 'retried' | 'answered' | 'failed' };

/**
 * The attempts of a call in order. With a fallback path every model but the last fell back and the
 * last gave the final status; otherwise the attempts were retries of the one model. A call the
 * gateway refused before any upstream call (no balance, a limit, bad input) has none.
 */
export function attemptSteps(
  r: Pick<RequestRecord, 'attempts' | 'fallback_path' | 'model' | 'served_model' | 'status'>,
): AttemptStep[] {
  const final: AttemptStep['outcome'] = r.status < 400 ? 'answered' : 'failed';
  const path = (r.fallback_path ?? []).filter(Boolean);
  if (path.length > 1) return path.map((model, i) => ({ model, outcome: i === path.length - 1 ? final : 'fell_back' }));
  if (r.attempts < 1) return [];
  const model = r.served_model ?? r.model ?? '—';
  const n = r.attempts;
  return Array.from({ length: n }, (_, i) => ({ model, outcome: i === n - 1 ? final : 'retried' }));
}
