import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import i18n from '../../i18n';
import { AlertsPage, EVENTS_REFRESH_MS } from './alerts-page';

const adminState = { ...memberState, role: 'admin' as const };
const rule = (language: 'en' | 'ru') => ({
  id: 'alr_000000000000000000000001',
  object: 'alert_rule',
  team_id: 'team-1',
  kind: 'balance_below',
  enabled: true,
  threshold_rub: 50,
  api_key_id: null,
  period: null,
  percent: null,
  budget_rub: null,
  window_minutes: null,
  min_requests: null,
  channels: [
    { type: 'webhook', url: 'https://ops.example.com/hook', to: null, chat_id: null, bot_token_hint: null, language },
  ],
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
});
const event = {
  id: 'ale_000000000000000000000001',
  object: 'alert_event',
  rule_id: 'alr_000000000000000000000001',
  kind: 'balance_below',
  threshold: 50,
  period_key: 'c:0',
  value: 42.5,
  message: 'Balance 42.5 RUB is below 50 RUB. Top up on the Billing page: /billing?team_id=team-1',
  details: {
    unit: 'RUB',
    billing_url: '/billing?team_id=team-1',
    spent_rub: null,
    budget_rub: null,
    api_key_id: null,
    period: null,
    errors: null,
    requests: null,
    window_minutes: null,
  },
  fired_at: '2026-11-26T10:00:00.000Z',
  test: false,
  deliveries: [],
};

/** The gateway of these tests: the rules given, the events of `state.events`, created rules recorded. */
function serve(state: { rules: unknown[]; events: unknown[] }) {
  server.handle = ({ method, path, body }) => {
    if (path === '/api/v1/teams/team-1/api-keys') return json({ object: 'list', data: [] });
    if (path === '/api/v1/teams/team-1/alerts/events')
      return json({ object: 'list', data: state.events, has_more: false });
    if (path === '/api/v1/teams/team-1/alerts' && method === 'POST') {
      const created = { ...rule('en'), id: 'alr_000000000000000000000002', ...(JSON.parse(body!) as object) };
      state.rules.push(created);
      return json(created, 201);
    }
    if (path === '/api/v1/teams/team-1/alerts') return json({ object: 'list', data: state.rules });
    return json({ error: { message: 'unexpected' } }, 404);
  };
}
const eventCalls = () => server.calls.filter((c) => new URL(c.url).pathname.endsWith('/alerts/events')).length;

function setHidden(hidden: boolean) {
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  document.dispatchEvent(new Event('visibilitychange'));
}

describe('Alerts page', () => {
  afterEach(async () => {
    vi.useRealTimers();
    setHidden(false);
    await i18n.changeLanguage('en');
  });

  it("a channel's message language: offered in English and Russian, sent with the new rule, shown in the list", async () => {
    const state = { rules: [rule('ru')], events: [] };
    serve(state);
    renderWithApp(<AlertsPage />, adminState);
    const user = userEvent.setup();
    const rules = await screen.findByRole('table', { name: 'Alert rules' });
    expect(within(rules).getByTestId('alert-channel-language')).toHaveTextContent('Russian');

    const form = screen.getByTestId('alert-rule-form');
    const language = within(form).getAllByLabelText('Message language', { selector: 'input' })[0];
    expect(language).toHaveValue('English'); // the interface language
    await user.click(language);
    const listbox = await waitFor(() => document.getElementById(language.getAttribute('aria-controls') ?? '')!);
    await user.click(within(listbox).getByRole('option', { name: 'Russian', hidden: true }));
    await user.type(
      within(form).getAllByLabelText(/^Webhook URL/, { selector: 'input' })[0],
      'https://ops.example.com/ru',
    );
    await user.click(within(form).getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(server.calls.some((c) => c.method === 'POST')).toBe(true));
    const post = server.calls.find((c) => c.method === 'POST')!;
    expect(JSON.parse(post.body!)).toMatchObject({
      kind: 'balance_below',
      channels: [{ type: 'webhook', url: 'https://ops.example.com/ru', language: 'ru' }],
    });
  });

  it('in Russian the form preselects Russian and names both languages in Russian', async () => {
    await i18n.changeLanguage('ru');
    serve({ rules: [rule('en')], events: [] });
    renderWithApp(<AlertsPage />, adminState);
    const rules = await screen.findByRole('table', { name: 'Правила оповещений' });
    expect(within(rules).getByTestId('alert-channel-language')).toHaveTextContent('Английский');
    const form = screen.getByTestId('alert-rule-form');
    expect(within(form).getAllByLabelText('Язык сообщений', { selector: 'input' })[0]).toHaveValue('Русский');
  });

  it('a newly fired event appears without a reload; nothing is fetched while the tab is hidden', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const state = { rules: [rule('en')], events: [] as unknown[] };
    serve(state);
    renderWithApp(<AlertsPage />, adminState);
    await screen.findByText('No events yet');

    state.events = [event];
    await act(() => vi.advanceTimersByTimeAsync(EVENTS_REFRESH_MS + 100));
    const row = await screen.findByTestId(`alert-event-${event.id}`);
    expect(within(row).getByTestId('alert-event-text')).toHaveTextContent('Balance');

    // a hidden tab asks nothing; shown again, the page follows on
    setHidden(true);
    const before = eventCalls();
    await act(() => vi.advanceTimersByTimeAsync(EVENTS_REFRESH_MS * 4));
    expect(eventCalls()).toBe(before);
    setHidden(false);
    await act(() => vi.advanceTimersByTimeAsync(EVENTS_REFRESH_MS + 100));
    await waitFor(() => expect(eventCalls()).toBeGreaterThan(before));
  });
});
