import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { memberState, renderWithApp } from '../../test/render';
import { guessFormat, MessengerImportForm } from './messenger-import-form';

/** What the page sent through XMLHttpRequest (uploads report progress; fetch cannot). */
interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  form: FormData;
}

function fakeXhr(status: number, answer: unknown) {
  const sent: Sent[] = [];
  class Xhr {
    status = 0;
    statusText = '';
    responseText = '';
    withCredentials = false;
    upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = {
      onprogress: null,
    };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    private req: Sent = { method: '', url: '', headers: {}, form: new FormData() };
    open(method: string, url: string) {
      this.req.method = method;
      this.req.url = url;
    }
    setRequestHeader(k: string, v: string) {
      this.req.headers[k] = v;
    }
    abort() {}
    send(form: FormData) {
      this.req.form = form;
      sent.push(this.req);
      setTimeout(() => {
        this.upload.onprogress?.({ lengthComputable: true, loaded: 5, total: 10 });
        this.status = status;
        this.responseText = JSON.stringify(answer);
        this.onload?.();
      }, 10);
    }
  }
  vi.stubGlobal('XMLHttpRequest', Xhr);
  return sent;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('guessFormat', () => {
  it('knows the three exports by their file type', () => {
    expect(guessFormat('result.json')).toBe('telegram');
    expect(guessFormat('WhatsApp Chat with Ann.txt')).toBe('whatsapp');
    expect(guessFormat('Acme Slack export.ZIP')).toBe('slack');
    expect(guessFormat('notes.pdf')).toBeNull();
  });
});

describe('Materials → import a messenger chat', () => {
  it('uploads the file with its format and title to /messenger-chats and reports the new material', async () => {
    const sent = fakeXhr(202, { id: 'mat_1', kind: 'messenger_chat', status: 'in_progress' });
    const onAdded = vi.fn();
    renderWithApp(<MessengerImportForm projectId="p1" onAdded={onAdded} />, memberState);
    const user = userEvent.setup();
    const file = new File(['{"name":"Team","messages":[]}'], 'result.json', { type: 'application/json' });
    await user.upload(screen.getByLabelText('Chat export file to upload'), file);
    // the format follows the file type
    expect(screen.getAllByLabelText('Export format', { selector: 'input' })[0]).toHaveValue('Telegram (JSON)');
    await user.type(screen.getByRole('textbox', { name: 'Title (optional)' }), 'Team chat');
    await user.click(screen.getByRole('button', { name: 'Import chat' }));
    await waitFor(() => expect(onAdded).toHaveBeenCalledTimes(1));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: '/api/v1/projects/p1/messenger-chats' });
    expect(sent[0].headers).toMatchObject({ 'x-team-id': 'team-1', 'x-csrf-token': 'csrf-1' });
    expect(sent[0].form.get('format')).toBe('telegram');
    expect(sent[0].form.get('title')).toBe('Team chat');
    expect((sent[0].form.get('file') as File).name).toBe('result.json');
  });

  it("shows the server's refusal and keeps the file for another try", async () => {
    const message = 'The file is not a Telegram Desktop export (result.json)';
    fakeXhr(400, { error: { message, type: 'invalid_request_error', code: 'invalid_export' } });
    const onAdded = vi.fn();
    renderWithApp(<MessengerImportForm projectId="p1" onAdded={onAdded} />, memberState);
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Chat export file to upload'), new File(['x'], 'result.json'));
    await user.click(screen.getByRole('button', { name: 'Import chat' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(onAdded).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Import chat' })).toBeEnabled();
  });
});
