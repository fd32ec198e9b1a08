import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp, viewerState } from '../../test/render';
import { MaterialsTab } from './materials-tab';
import { parseTranscript } from './chat-form';

describe('parseTranscript', () => {
  it('reads "role: text" lines; a line without a role continues the previous message', () => {
    expect(parseTranscript('user: Hi\nassistant: Hello\nsee https://example.com\nuser: bye')).toEqual({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello\nsee https://example.com' },
        { role: 'user', content: 'bye' },
      ],
    });
  });

  it('takes a JSON array as the messages themselves', () => {
    expect(parseTranscript('[{"role":"user","content":"Hi","created_at":"2026-01-15T10:00:00Z"}]')).toEqual({
      messages: [{ role: 'user', content: 'Hi', created_at: '2026-01-15T10:00:00Z' }],
    });
  });

  it('refuses an empty paste, broken JSON and a first line without a role', () => {
    expect(parseTranscript('  ')).toEqual({ error: 'chats.emptyTranscript' });
    expect(parseTranscript('[{"role":')).toEqual({ error: 'chats.badJson' });
    expect(parseTranscript('just some text')).toEqual({ error: 'chats.noRole' });
  });
});

function materialsServer(chatStatus = 202) {
  let materials: unknown[] = [];
  server.handle = ({ method, path, body }) => {
    if (method === 'POST' && path === '/api/v1/projects/p1/chats') {
      if (chatStatus !== 202) return json({ error: { message: 'messages must be an array' } }, chatStatus);
      const { title } = JSON.parse(body!) as { title: string };
      materials = [{ id: 'm1', kind: 'chat', title, status: 'in_progress', tokens: null }];
      return json(materials[0], 202);
    }
    if (path === '/api/v1/projects/p1/materials') return json({ object: 'list', data: materials });
    if (path === '/api/v1/knowledge-bases') return json({ object: 'list', data: [] });
    return json({ object: 'list', data: [] });
  };
}

describe('Materials → attach a chat', () => {
  it('sends the title and the parsed messages to POST /projects/{id}/chats and lists the new material', async () => {
    materialsServer();
    renderWithApp(<MaterialsTab projectId="p1" />, memberState);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Attach a chat' });
    expect(form).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /^Chat title/ }), 'Support with ACME');
    await user.type(
      screen.getByRole('textbox', { name: /^Conversation/ }),
      'user: How do I reset?{enter}assistant: Settings → Security',
    );
    await user.click(screen.getByRole('button', { name: 'Attach chat' }));
    await waitFor(() => expect(server.calls.some((c) => c.url.endsWith('/api/v1/projects/p1/chats'))).toBe(true));
    const post = server.calls.find((c) => c.url.endsWith('/api/v1/projects/p1/chats'))!;
    expect(post.method).toBe('POST');
    expect(post.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(JSON.parse(post.body!)).toEqual({
      title: 'Support with ACME',
      messages: [
        { role: 'user', content: 'How do I reset?' },
        { role: 'assistant', content: 'Settings → Security' },
      ],
    });
    expect(await screen.findByRole('cell', { name: 'Support with ACME' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Chat title/ })).toHaveValue('');
  });

  it('a paste without roles is refused in the form, before any request', async () => {
    materialsServer();
    renderWithApp(<MaterialsTab projectId="p1" />, memberState);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('textbox', { name: /^Chat title/ }), 'Notes');
    await user.type(screen.getByRole('textbox', { name: /^Conversation/ }), 'no roles here');
    await user.click(screen.getByRole('button', { name: 'Attach chat' }));
    expect(await screen.findByText('The first line must start with a role, e.g. "user: …".')).toBeInTheDocument();
    expect(server.calls.some((c) => c.url.endsWith('/chats'))).toBe(false);
  });

  it("shows the server's message when it refuses the chat", async () => {
    materialsServer(400);
    renderWithApp(<MaterialsTab projectId="p1" />, memberState);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('textbox', { name: /^Chat title/ }), 'Bad');
    await user.type(screen.getByRole('textbox', { name: /^Conversation/ }), '[[{{"role":"user"}]');
    await user.click(screen.getByRole('button', { name: 'Attach chat' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('messages must be an array');
  });

  it('a viewer gets no chat form', async () => {
    materialsServer();
    renderWithApp(<MaterialsTab projectId="p1" />, viewerState);
    await screen.findByText('No materials yet');
    expect(screen.queryByRole('form', { name: 'Attach a chat' })).not.toBeInTheDocument();
  });
});
