import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { KnowledgeBasesPage } from './knowledge-page';

const kb = (status: 'in_progress' | 'completed', chunks: number) => ({
  id: 'vs_1',
  name: 'Policies',
  description: null,
  metadata: null,
  status,
  embedding_model: 'local-embedding-small',
  dimensions: 1536,
  document_count: 1,
  link_count: 0,
  chunk_count: chunks,
  usage_bytes: 0,
  file_counts: {
    in_progress: status === 'in_progress' ? 1 : 0,
    completed: chunks > 0 ? 1 : 0,
    failed: 0,
    cancelled: 0,
    total: 1,
  },
  created_at: new Date().toISOString(),
});

describe('Knowledge bases', () => {
  it('a knowledge base still ingesting is read again until its status is completed', async () => {
    let reads = 0;
    server.handle = ({ path }) => {
      if (path === '/api/v1/knowledge-bases') {
        reads++;
        return json({
          object: 'list',
          data: [reads === 1 ? kb('in_progress', 0) : kb('completed', 1)],
          has_more: false,
        });
      }
      return json({ object: 'list', data: [] });
    };
    renderWithApp(<KnowledgeBasesPage />, memberState);
    const table = await screen.findByRole('table', { name: 'Knowledge bases' });
    expect(within(table).getByText('in progress')).toBeTruthy();
    expect(await within(table).findByText('completed', {}, { timeout: 5000 })).toBeTruthy();
    expect(reads).toBe(2);
  }, 10_000);
});
