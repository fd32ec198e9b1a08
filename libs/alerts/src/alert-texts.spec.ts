import { alertTexts, deliveredTexts, eventMessage, type EventForText } from './alert-texts';

const NBSP = '\u00a0';
const firedAt = Date.UTC(2026, 10, 26, 10, 0, 0);
const base = { teamId: 'team-1', ruleId: 'alr_1', firedAt };

function errorRate(errors: number, requests: number, windowMinutes: number): EventForText {
  return {
    ...base,
    kind: 'error_rate',
    threshold: 20,
    facts: {
      value: Math.round((errors * 10_000) / requests) / 100,
      unit: 'percent',
      errors,
      requests,
      window_minutes: windowMinutes,
      message: 'English',
    },
  };
}

describe('alert texts', () => {
  it('balance: Russian money with grouped thousands and a comma (1 234,50 ₽); English as stored', () => {
    const e: EventForText = {
      ...base,
      kind: 'balance_below',
      threshold: 1234.5,
      facts: {
        value: 1234.000001,
        unit: 'RUB',
        billing_url: '/billing?team_id=team-1',
        message: alertTexts('en').balance({
          value: 1234.000001,
          threshold: 1234.5,
          billingUrl: '/billing?team_id=team-1',
        }),
      },
    };
    expect(eventMessage('ru', e)).toBe(
      `Баланс 1${NBSP}234,000001${NBSP}₽ ниже порога 1${NBSP}234,50${NBSP}₽. Пополнить баланс можно на странице «Оплата»: /billing?team_id=team-1`,
    );
    expect(eventMessage('en', e)).toBe(
      'Balance 1234.000001 RUB is below 1234.5 RUB. Top up on the Billing page: /billing?team_id=team-1',
    );
    expect(deliveredTexts('ru', e)).toMatchObject({
      subject: 'Оповещение шлюза: баланс ниже порога',
      text: expect.stringMatching(/\n\nКоманда team-1, правило alr_1, 26 ноября 2026 г\. в 10:00:00 UTC\.$/),
    });
    expect(deliveredTexts('en', e)).toMatchObject({
      subject: 'Gateway alert: balance below',
      text: expect.stringMatching(/\n\nTeam team-1, rule alr_1, 2026-11-26T10:00:00\.000Z\.$/),
    });
  });

  it("budget: the key's or the team's, daily or monthly, percentages with a comma", () => {
    const e = (apiKeyId: string | null, period: 'day' | 'month'): EventForText => ({
      ...base,
      kind: 'budget_used',
      threshold: 80,
      facts: {
        value: 81.25,
        unit: 'percent',
        spent_rub: 812.5,
        budget_rub: 1000,
        api_key_id: apiKeyId,
        period,
        message: 'English',
      },
    });
    expect(eventMessage('ru', e('key-1', 'month'))).toBe(
      `Расход ключа key-1 достиг 80${NBSP}% месячного бюджета: 812,50${NBSP}₽ из 1${NBSP}000,00${NBSP}₽ (81,25${NBSP}%).`,
    );
    expect(eventMessage('ru', e(null, 'day'))).toMatch(/^Расход команды достиг 80\u00a0% дневного бюджета: /);
    expect(
      alertTexts('en').budget({ percent: 80, period: 'day', apiKeyId: null, spentRub: 8, budgetRub: 10, value: 80 }),
    ).toBe('Spend of the team reached 80% of its daily budget: 8 of 10 RUB (80%).');
  });

  it('error rate: Russian counts and minutes agree with their numbers', () => {
    expect(eventMessage('ru', errorRate(5, 20, 5))).toBe(
      `Доля ошибок 25${NBSP}% (5 из 20 запросов за последние 5 минут) выше порога 20${NBSP}%.`,
    );
    expect(eventMessage('ru', errorRate(1, 21, 1))).toContain('(1 из 21 запроса за последнюю минуту)');
    expect(eventMessage('ru', errorRate(3, 1234, 2))).toContain(`(3 из 1${NBSP}234 запросов за последние 2 минуты)`);
    expect(eventMessage('ru', errorRate(3, 10, 21))).toContain('за последние 21 минуту');
    expect(eventMessage('ru', errorRate(1, 3, 1))).toContain(`Доля ошибок 33,33${NBSP}%`);
  });

  it('a test names the rule in either language; an event without its facts keeps the English message', () => {
    const test: EventForText = {
      ...base,
      kind: 'error_rate',
      threshold: 0,
      facts: { value: 0, test: true, message: 'x' },
    };
    expect(deliveredTexts('ru', test)).toMatchObject({
      subject: 'Оповещение шлюза (тест): доля ошибок выше порога',
      message: 'Тест правила оповещения «доля ошибок выше порога» alr_1: его каналы доступны.',
    });
    expect(deliveredTexts('en', test)).toMatchObject({
      subject: 'Gateway alert (test): error rate',
      message: 'Test of the error rate alert rule alr_1: its channels are reachable.',
    });
    const old: EventForText = {
      ...base,
      kind: 'balance_below',
      threshold: 5,
      facts: { value: 4, message: 'Old English' },
    };
    expect(eventMessage('ru', old)).toBe('Old English');
  });
});
