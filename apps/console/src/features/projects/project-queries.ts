import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

export type Project = components['schemas']['ProjectDto'];
export type Material = components['schemas']['MaterialDto'];
export type CatalogModel = components['schemas']['CatalogModelDto'];

export function useProjects() {
  return useQuery({
    queryKey: ['projects'],
    queryFn: async () => unwrap(await api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })),
  });
}

export function useProject(id: string) {
  return useQuery({
    queryKey: ['project', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/projects/{id}', { params: { path: { id } } })),
  });
}

/** Materials, polled every 2 s while any is still being processed. */
export function useMaterials(id: string) {
  return useQuery({
    queryKey: ['materials', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/projects/{id}/materials', { params: { path: { id } } })),
    refetchInterval: (q) =>
      (q.state.data?.data as Material[] | undefined)?.some((m) => m.status === 'in_progress') ? 2000 : false,
  });
}

export function useCreateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: components['schemas']['CreateProjectDto']) =>
      unwrap(await api.POST('/api/v1/projects', { body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['projects'] }),
  });
}

export function useModels() {
  return useQuery({
    queryKey: ['models'],
    queryFn: async () => unwrap(await api.GET('/api/v1/models')),
    staleTime: 60_000,
  });
}
