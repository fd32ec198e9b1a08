import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderWithApp, memberState } from '../../test/render';
import { ApiRequestsTab } from './api-requests-tab';

describe('Settings → API requests', () => {
  const projectId = 'proj_0123456789abcdef01234567';
  const base = 'https://gw.example.com';

  it('shows the project id with a copy button and four ready snippets filled with it and the base URL', () => {
    renderWithApp(
      <ApiRequestsTab projectId={projectId} baseUrl={base} model="local" knowledgeBaseId="vs_abc" />,
      memberState,
    );
    expect(screen.getByTestId('project-id')).toHaveTextContent(projectId);
    expect(screen.getByRole('button', { name: 'Copy project ID' })).toBeInTheDocument();

    const curl = screen.getByLabelText('curl: POST /api/v1/chat', { selector: 'pre' });
    expect(curl).toHaveTextContent(`curl -s ${base}/api/v1/chat`);
    expect(curl.textContent).toContain(`"project_id":"${projectId}"`);
    expect(curl.textContent).toContain('"model":"local"');

    const py = screen.getByLabelText('Python (openai SDK)', { selector: 'pre' });
    expect(py.textContent).toContain(`base_url="${base}/v1"`);
    expect(py.textContent).toContain(`extra_body={"project_id": "${projectId}"}`);

    const ts = screen.getByLabelText('TypeScript (openai SDK)', { selector: 'pre' });
    expect(ts.textContent).toContain(`baseURL: '${base}/v1'`);
    expect(ts.textContent).toContain(`project_id: '${projectId}'`);

    const search = screen.getByLabelText('REST: knowledge-base search', { selector: 'pre' });
    expect(search.textContent).toContain(`${base}/api/v1/knowledge-bases/vs_abc/search`);
    // every snippet has its own copy button
    for (const name of ['curl: POST /api/v1/chat', 'Python (openai SDK)', 'TypeScript (openai SDK)']) {
      expect(within(document.body).getByRole('button', { name: `Copy ${name}` })).toBeInTheDocument();
    }
  });

  it('the curl snippet is a valid request body', () => {
    renderWithApp(<ApiRequestsTab projectId={projectId} baseUrl={`${base}/`} model="local" />, memberState);
    const curl = screen.getByLabelText('curl: POST /api/v1/chat', { selector: 'pre' }).textContent ?? '';
    const body = JSON.parse(/-d '(.*)'/.exec(curl)![1]);
    expect(body).toEqual({ model: 'local', user_id: 'user-1', project_id: projectId, prompt: expect.any(String) });
    expect(curl).not.toContain('//api'); // trailing slash of the base URL dropped
  });
});
