import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { DataPolicySettings } from './data-policy-settings';

const policy = {
  residency: 'any',
  pii: 'mask',
  pii_scope: 'foreign_only',
  entities: ['email', 'phone'],
  custom_patterns: [{ name: 'order_id', regex: 'ORD-\\d{6}' }],
  allow_list: ['support@example.com'],
  updated_at: '2026-11-28T10:00:00.000Z',
};
const PATH = '/api/v1/teams/team-1/data-policy';

async function pick(label: string, option: string): Promise<void> {
  const user = userEvent.setup();
  const input = (await screen.findAllByLabelText(label, { selector: 'input' }))[0];
  await user.click(input);
  const listbox = await waitFor(() => document.getElementById(input.getAttribute('aria-controls') ?? '')!);
  await user.click(within(listbox).getByRole('option', { name: option, hidden: true }));
}

describe('Members → data protection', () => {
  it("shows the team's policy and saves a change with PUT /teams/{id}/data-policy", async () => {
    server.handle = ({ method, path, body }) => {
      if (path !== PATH) return json({ error: { message: 'unexpected' } }, 404);
      if (method === 'PUT') return json({ ...policy, ...(JSON.parse(body!) as object) });
      return json(policy);
    };
    renderWithApp(<DataPolicySettings teamId="team-1" />, memberState);
    const user = userEvent.setup();
    const residency = (await screen.findAllByLabelText('Models', { selector: 'input' }))[0];
    await waitFor(() => expect(residency).toHaveValue('any provider'));
    expect(screen.getByRole('textbox', { name: /Own patterns/ })).toHaveValue('order_id: ORD-\\d{6}');
    await pick('Models', 'only providers in Russia');
    await pick('Personal data', 'refused (400 pii_detected)');
    await user.clear(screen.getByRole('textbox', { name: /Own patterns/ }));
    await user.type(screen.getByRole('textbox', { name: /Own patterns/ }), 'ticket: TCK-\\d+');
    await user.click(screen.getByRole('button', { name: 'Save data policy' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Saved.');
    const put = server.calls.find((c) => c.method === 'PUT')!;
    expect(put.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(JSON.parse(put.body!)).toEqual({
      residency: 'ru_only',
      pii: 'block',
      pii_scope: 'foreign_only',
      entities: ['email', 'phone'],
      custom_patterns: [{ name: 'ticket', regex: 'TCK-\\d+' }],
      allow_list: ['support@example.com'],
    });
  }, 30_000); // several selects and typing: slow on a loaded machine

  it("shows the server's refusal of a pattern", async () => {
    server.handle = ({ method }) =>
      method === 'PUT'
        ? json(
            {
              error: {
                message: 'body.custom_patterns[0].regex is rejected: has a nested quantifier.',
                code: 'invalid_pattern',
              },
            },
            400,
          )
        : json(policy);
    renderWithApp(<DataPolicySettings teamId="team-1" />, memberState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Save data policy' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('nested quantifier');
  });
});
