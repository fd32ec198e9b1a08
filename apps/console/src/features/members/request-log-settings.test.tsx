import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { RequestLogSettings } from './request-log-settings';

const team = {
  id: 'team-1',
  name: 'Acme',
  balance_rub: 10,
  request_log_bodies: 'metadata',
  request_log_retention_days: null,
  request_log_body_retention_days: 7,
};

describe('Members → request log settings', () => {
  it("shows the team's level and retention and saves a change with PATCH /teams/{id}; empty days mean the default", async () => {
    server.handle = ({ method, path, body }) => {
      if (path !== '/api/v1/teams/team-1') return json({ error: { message: 'unexpected' } }, 404);
      if (method === 'PATCH') return json({ ...team, ...(JSON.parse(body!) as object) });
      return json(team);
    };
    renderWithApp(<RequestLogSettings teamId="team-1" />, memberState);
    const user = userEvent.setup();
    const level = (await screen.findAllByLabelText('Record', { selector: 'input' }))[0];
    await waitFor(() => expect(level).toHaveValue('metadata, without bodies'));
    expect(screen.getByRole('textbox', { name: 'Keep bodies, days' })).toHaveValue('7');
    await user.click(level);
    const listbox = await waitFor(() => document.getElementById(level.getAttribute('aria-controls') ?? '')!);
    await user.click(within(listbox).getByRole('option', { name: 'metadata and bodies', hidden: true }));
    await user.clear(screen.getByRole('textbox', { name: 'Keep bodies, days' }));
    await user.type(screen.getByRole('textbox', { name: 'Keep records, days' }), '14');
    await user.click(screen.getByRole('button', { name: 'Save request log settings' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Saved.');
    const patch = server.calls.find((c) => c.method === 'PATCH')!;
    expect(patch.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(JSON.parse(patch.body!)).toEqual({
      request_log_bodies: 'full',
      request_log_retention_days: 14,
      request_log_body_retention_days: null,
    });
  });

  it("shows the server's refusal", async () => {
    server.handle = ({ method }) =>
      method === 'PATCH'
        ? json({ error: { message: 'request_log_retention_days must not be greater than 3650' } }, 400)
        : json(team);
    renderWithApp(<RequestLogSettings teamId="team-1" />, memberState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Save request log settings' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('must not be greater than 3650');
  });
});
