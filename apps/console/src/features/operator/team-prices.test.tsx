import { afterEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import i18n from '../../i18n';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { TeamPrices } from './team-prices';
import { ownPricesOf, ownFormOf, checkOwn, ownFieldsOf } from './team-prices-form';

const operatorState: AuthState = {
  ...memberState,
  email: 'root@ops.test',
  memberships: [],
  teamId: null,
  teamName: null,
  role: 'operator',
  isOperator: true,
};

const PATH = '/api/v1/admin/teams/team-9/pricing';
const chat = {
  input_rub_per_1m: 16.5,
  output_rub_per_1m: 66,
  cache_read_rub_per_1m: null,
  cache_write_rub_per_1m: null,
};
const pricing = {
  team_id: 'team-9',
  markup_percent: 10,
  discount_percent: 0,
  updated_at: '2026-01-01T00:00:00.000Z',
  models: {
    'gpt-4o-mini': { input_per_1m_rub: 12, output_per_1m_rub: 48 },
    'text-embedding-3-small': { input_per_1m_rub: 1.5 },
  },
  prices: [
    {
      model: 'gpt-4o-mini',
      pricing: { ...chat, input_rub_per_1m: 12, output_rub_per_1m: 48, image_rub: null, request_rub: null },
      fx: null,
    },
    { model: 'gpt-4o', pricing: { ...chat, image_rub: null, request_rub: null }, fx: null },
  ],
};
const catalog = {
  data: [
    { key: 'gpt-4o-mini', kind: 'chat' },
    { key: 'gpt-4o', kind: 'chat' },
    { key: 'text-embedding-3-small', kind: 'embedding' },
  ],
};

/** GET answers the pricing, PUT answers what was put (or `refuse`'s error). */
function serve(refuse?: { status: number; body: unknown }) {
  server.handle = ({ method, path, body }) => {
    if (path === '/api/v1/admin/models') return json(catalog);
    if (path !== PATH) return json({ error: { message: 'unexpected' } }, 404);
    if (method === 'PUT') return refuse ? json(refuse.body, refuse.status) : json({ ...pricing, ...JSON.parse(body!) });
    return json(pricing);
  };
}
const putBodies = () => server.calls.filter((c) => c.method === 'PUT').map((c) => JSON.parse(c.body!) as unknown);

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('Operator → a team → Prices', () => {
  it('shows the markup, the own prices ("catalog" where none, "—" where the kind takes none) and what the team pays today', async () => {
    serve();
    renderWithApp(<TeamPrices teamId="team-9" />, operatorState);
    expect(await screen.findByRole('textbox', { name: 'Markup, %' })).toHaveValue('10');
    const own = screen.getByRole('table', { name: 'Own prices' });
    const mini = within(own).getByText('gpt-4o-mini').closest('tr')!;
    expect(mini).toHaveTextContent('RUB 12.00');
    expect(within(mini).getAllByText('catalog')).toHaveLength(5);
    await waitFor(() =>
      expect(within(own).getByText('text-embedding-3-small').closest('tr')!).toHaveTextContent(
        /RUB 1\.50(—){5}catalog/,
      ),
    );
    const today = screen.getByRole('table', { name: 'What the team pays today' });
    expect(within(today).getByText('gpt-4o-mini').closest('tr')!).toHaveTextContent('own prices');
    expect(within(today).getByText('gpt-4o').closest('tr')!).toHaveTextContent(/in RUB\s16\.50 · out RUB\s66\.00/);
  });

  it('an image model shows what the team pays per generated image, from the server’s table', async () => {
    const image = {
      model: 'dall-e-3',
      pricing: { ...chat, input_rub_per_1m: 0, output_rub_per_1m: 0, image_rub: null, request_rub: null },
      per_image_rub: { '1024x1024': { standard: 4.4, hd: 8.8 }, '1792x1024': { standard: 8.8, hd: 13.2 } },
      fx: null,
    };
    server.handle = ({ path }) =>
      path === '/api/v1/admin/models'
        ? json({ data: [...catalog.data, { key: 'dall-e-3', kind: 'image' }] })
        : json({ ...pricing, prices: [...pricing.prices, image] });
    renderWithApp(<TeamPrices teamId="team-9" />, operatorState);
    const today = await screen.findByRole('table', { name: 'What the team pays today' });
    await waitFor(() =>
      expect(within(today).getByText('dall-e-3').closest('tr')!).toHaveTextContent(
        /RUB\s4\.40 – RUB\s13\.20 per image/,
      ),
    );
    expect(within(today).getByText('dall-e-3').closest('tr')!).not.toHaveTextContent('0.00');
  });

  it('an edit is saved with PUT: the markup, the discount and every model’s own prices, the fee per request included', async () => {
    serve();
    renderWithApp(<TeamPrices teamId="team-9" />, operatorState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit own prices of gpt-4o-mini' }));
    const dialog = await screen.findByRole('dialog', { name: 'Own prices of gpt-4o-mini' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Per request, RUB' }), '0,25');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(putBodies()).toEqual([
      {
        markup_percent: 10,
        discount_percent: 0,
        models: {
          'gpt-4o-mini': { input_per_1m_rub: 12, output_per_1m_rub: 48, request_rub: 0.25 },
          'text-embedding-3-small': { input_per_1m_rub: 1.5 },
        },
      },
    ]);
    expect(server.calls.find((c) => c.method === 'PUT')!.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it('the server’s refusal is shown on its field: its words in English, the field named in Russian', async () => {
    serve({
      status: 400,
      body: {
        error: {
          message: 'models.gpt-4o-mini.request_rub must have at most 6 decimals.',
          code: 'invalid_model_prices',
          param: 'models.gpt-4o-mini.request_rub',
        },
      },
    });
    renderWithApp(<TeamPrices teamId="team-9" />, operatorState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit own prices of gpt-4o-mini' }));
    let dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByRole('textbox', { name: 'Per request, RUB' }), '0.1234567');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(
      await within(dialog).findByText('models.gpt-4o-mini.request_rub must have at most 6 decimals.'),
    ).toBeVisible();
    expect(within(dialog).getByRole('textbox', { name: 'Per request, RUB' })).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).queryByRole('alert')).toBeNull(); // shown on the field, not again above it
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await i18n.changeLanguage('ru');
    await user.click(await screen.findByRole('button', { name: 'Изменить собственные цены gpt-4o-mini' }));
    dialog = await screen.findByRole('dialog', { name: 'Собственные цены gpt-4o-mini' });
    expect(within(dialog).getByRole('textbox', { name: 'Вход, ₽' })).toHaveValue('12');
    await user.type(within(dialog).getByRole('textbox', { name: 'За запрос, ₽' }), '0,1234567');
    await user.click(within(dialog).getByRole('button', { name: 'Сохранить' }));
    expect(await within(dialog).findByText('Сервер не принял поле «За запрос».')).toBeVisible();
  });

  it('removing a model’s own prices asks first, then PUTs the others', async () => {
    serve();
    renderWithApp(<TeamPrices teamId="team-9" />, operatorState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Remove own prices of gpt-4o-mini' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove the own prices of gpt-4o-mini?' });
    expect(putBodies()).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(putBodies()).toHaveLength(1));
    expect(putBodies()[0]).toEqual({
      markup_percent: 10,
      discount_percent: 0,
      models: { 'text-embedding-3-small': { input_per_1m_rub: 1.5 } },
    });
  });
});

describe('the own-prices form', () => {
  it('empty fields are left out (the catalog’s price); a decimal comma is read; bad numbers are marked', () => {
    const form = { ...ownFormOf(undefined, 'ru'), input_per_1m_rub: '12,5', request_rub: '0' };
    expect(ownPricesOf(form)).toEqual({ input_per_1m_rub: 12.5, request_rub: 0 });
    expect(ownFormOf({ input_per_1m_rub: 0.5 }, 'ru').input_per_1m_rub).toBe('0,5');
    expect(checkOwn('m', { ...form, output_per_1m_rub: 'abc', image_rub: '-1' })).toEqual({
      'models.m.output_per_1m_rub': 'number',
      'models.m.image_rub': 'negative',
    });
    expect(checkOwn(null, form)).toEqual({ model: 'model' });
  });

  it('offers the prices a kind of model takes, and any set already', () => {
    expect(ownFieldsOf('embedding')).toEqual(['input_per_1m_rub', 'request_rub']);
    expect(ownFieldsOf('embedding', { output_per_1m_rub: 1 })).toEqual([
      'input_per_1m_rub',
      'output_per_1m_rub',
      'request_rub',
    ]);
    expect(ownFieldsOf('chat')).toHaveLength(7);
  });
});
