import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithApp, memberState } from '../../test/render';
import { json, server } from '../../test/setup';
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
    // every snippet runs as pasted: the key from the environment, nothing left to fill in
    for (const code of [curl, search].map((e) => e.textContent ?? ''))
      expect(code).toContain('api-key: $GATEWAY_API_KEY');
    expect(py.textContent).toContain('api_key=os.environ["GATEWAY_API_KEY"]');
    expect(ts.textContent).toContain('apiKey: process.env.GATEWAY_API_KEY');
    expect(document.body.textContent).not.toMatch(/<[A-Z_]+>/);
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
    // without a knowledge base there is no search snippet (nothing to fill in)
    expect(screen.queryByLabelText('REST: knowledge-base search', { selector: 'pre' })).toBeNull();
  });

  it('asks about a material of the project; a quote in its title stays valid shell', () => {
    renderWithApp(
      <ApiRequestsTab projectId={projectId} baseUrl={base} model="local" materialTitle="Bob's handbook.md" />,
      memberState,
    );
    const curl = screen.getByLabelText('curl: POST /api/v1/chat', { selector: 'pre' }).textContent ?? '';
    expect(curl).toContain(`-d '{"model":"local"`);
    expect(curl).toContain(`Bob'\\''s handbook.md`);
  });

  it('"Run" sends the curl request with the console credential and shows the answer', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/chat'
        ? json({
            response: { text: 'The handbook says hello.' },
            usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
            cost: { total_cost_rub: 0.01, currency: 'RUB' },
            model: { model: 'local' },
          })
        : json({ error: { message: 'unexpected' } }, 404);
    renderWithApp(<ApiRequestsTab projectId={projectId} baseUrl={base} model="local" />, memberState);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Run' }));
    expect(await screen.findByTestId('run-answer')).toHaveTextContent('The handbook says hello.');
    const call = server.calls.find((c) => c.url.endsWith('/api/v1/chat'))!;
    expect(JSON.parse(call.body!)).toMatchObject({ project_id: projectId, model: 'local' });
    expect(call.headers.get('x-team-id')).toBe('team-1');
  });
});
