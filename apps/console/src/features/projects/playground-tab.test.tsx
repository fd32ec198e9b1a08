import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp, viewerState } from '../../test/render';
import { PlaygroundTab } from './playground-tab';

const model = {
  key: 'local',
  kind: 'chat',
  available: true,
  pricing: { input_rub_per_1m: 10, output_rub_per_1m: 20 },
};

function sse(events: [string, unknown][]): Response {
  const text = events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
  return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('Playground with a session', () => {
  it("chats with the member's session for the current team (x-team-id + CSRF), asking for no API key", async () => {
    server.handle = ({ method, path }) => {
      if (path === '/api/v1/models') return json({ object: 'list', data: [model] });
      if (method === 'POST' && path === '/api/v1/chat')
        return sse([
          ['delta', { text: 'Paris' }],
          ['delta', { text: '.' }],
          [
            'done',
            {
              response: { text: 'Paris.' },
              usage: { prompt_tokens: 12, completion_tokens: 2 },
              cost: { total_cost_rub: 0.00016 },
              sources: [],
            },
          ],
        ]);
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<PlaygroundTab projectId="p1" />, memberState);
    const user = userEvent.setup();
    expect(screen.queryByLabelText(/API key/i)).not.toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'Your question' }), 'Capital of France?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByTestId('answer-cost')).toHaveTextContent('0.00016');
    expect(screen.getByTestId('answer')).toHaveTextContent('Paris.');
    const call = server.calls.find((c) => c.method === 'POST' && c.url.endsWith('/api/v1/chat'))!;
    expect(call.headers.get('x-team-id')).toBe('team-1');
    expect(call.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(call.headers.get('api-key')).toBeNull();
    expect(JSON.parse(call.body!)).toMatchObject({ model: 'local', project_id: 'p1', prompt: 'Capital of France?' });
  });

  it('a viewer is told chat is for members and gets no Send control', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/models' ? json({ object: 'list', data: [model] }) : json({ error: { message: 'x' } }, 404);
    renderWithApp(<PlaygroundTab projectId="p1" />, viewerState);
    expect(await screen.findByText(/Viewers can read the project but not chat/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Send' })).not.toBeInTheDocument();
  });
});
