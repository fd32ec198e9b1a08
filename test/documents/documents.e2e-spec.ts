/**
 * Company documents over HTTP, on two replicas of one database: requisites with check digits,
 * invoices numbered without gaps across replicas with their PDF, a 1C bank statement whose matched
 * payment credits once (uploaded twice, and on both replicas at once) while underpaid, overpaid,
 * foreign-ИНН and unknown-number payments are listed and never credited, manual mark-paid, and the
 * monthly act in Moscow time — preliminary while the month is open, frozen once it is closed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { BillingService } from '@app/billing';
import { rubInWords } from '@app/documents';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { joinTeam, as } from '../accounts/accounts-helpers';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { BUYER_A, BUYER_B, oneCStatement, op, pdfText, SELLER, startSmtp, waitFor } from './documents-helpers';

/** Set to a folder to keep the rendered PDFs (their first pages are in docs/images). */
const KEEP_PDFS = process.env.GW_TEST_KEEP_PDFS;

// two replicas, PDFs rendered and read back, a statement uploaded six times: slower than most suites
jest.setTimeout(120_000);

const clock = new ManualClock(Date.parse('2026-10-15T09:00:00Z'));
const setClock = (iso: string) => clock.advance(Date.parse(iso) - clock.now());

async function pdfOf(url: string, path: string): Promise<Buffer> {
  const res = await op(request(url).get(path))
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/pdf/);
  const pdf = res.body as Buffer;
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  return pdf;
}

function keep(name: string, pdf: Buffer): void {
  if (!KEEP_PDFS) return;
  mkdirSync(KEEP_PDFS, { recursive: true });
  writeFileSync(join(KEEP_PDFS, name), pdf);
}

describe(`documents on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminClient;
  let teamA: { teamId: string; apiKey: string };
  let teamB: { teamId: string; apiKey: string };
  const issued: { id: string; number: string; amount_rub: number }[] = [];

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    smtp = await startSmtp();
    const env = {
      ...providerEnv({ openai }),
      BILLING_CREDIT_GRANTS: 'false',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'billing@gateway.test',
    };
    a = await createTestApp({ env, clock });
    b = await createTestApp({ env, clock, shareBackendWith: a });
    admin = new AdminClient(a.url);
    teamA = await admin.teamWithKey(10, 'acme');
    teamB = await admin.teamWithKey(10, 'other');
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await openai?.close();
    await smtp?.close();
  });

  it('validates and stores requisites; invoices need them', async () => {
    expect(
      (await op(request(a.url).post(`/api/v1/teams/${teamA.teamId}/invoices`)).send({ amount_rub: 100 })).body,
    ).toMatchObject({ error: { code: 'requisites_missing' } });
    const badInn = await op(request(a.url).put('/api/v1/admin/seller')).send({ ...SELLER, inn: '7736207544' });
    expect(badInn.status).toBe(400);
    expect(badInn.body.error).toMatchObject({ code: 'invalid_requisites', param: 'inn' });
    const badAccount = await op(request(a.url).put('/api/v1/admin/seller')).send({
      ...SELLER,
      account: '40702810438000034727',
    });
    expect(badAccount.body.error).toMatchObject({ code: 'invalid_requisites', param: 'account' });
    const badOgrn = await op(request(a.url).put('/api/v1/admin/seller')).send({ ...SELLER, ogrn: '1027700229194' });
    expect(badOgrn.body.error).toMatchObject({ param: 'ogrn' });
    const seller = await op(request(a.url).put('/api/v1/admin/seller')).send(SELLER);
    expect(seller.status).toBe(200);
    expect(seller.body).toMatchObject({ inn: SELLER.inn, vat_rate: '22' });
    expect((await op(request(b.url).get('/api/v1/admin/seller'))).body.account).toBe(SELLER.account);

    const badKpp = await op(request(a.url).put(`/api/v1/teams/${teamA.teamId}/requisites`)).send({
      ...BUYER_A,
      kpp: '77360100',
    });
    expect(badKpp.body.error).toMatchObject({ code: 'invalid_requisites', param: 'kpp' });
    const member = await joinTeam(a.url, teamA.teamId, 'member@acme.test', 'member', 'correct horse battery');
    expect((await as(a.url, member).get(`/api/v1/teams/${teamA.teamId}/requisites`)).status).toBe(404);
    const denied = await as(a.url, member).put(`/api/v1/teams/${teamA.teamId}/requisites`).send(BUYER_A);
    expect(denied.status).toBe(403);
    const put = await op(request(a.url).put(`/api/v1/teams/${teamA.teamId}/requisites`)).send({
      ...BUYER_A,
      email_for_documents: 'buh@sber.test',
    });
    expect(put.status).toBe(200);
    expect((await as(a.url, member).get(`/api/v1/teams/${teamA.teamId}/requisites`)).body).toMatchObject({
      inn: BUYER_A.inn,
      email_for_documents: 'buh@sber.test',
    });
    expect((await op(request(a.url).put(`/api/v1/teams/${teamB.teamId}/requisites`)).send(BUYER_B)).status).toBe(200);
    const audit = await op(
      request(a.url).get(`/api/v1/audit-log?team_id=${teamA.teamId}&action=team.requisites.update`),
    );
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
  });

  it('numbers invoices without gaps across replicas and renders the PDF', async () => {
    const bad = await op(request(a.url).post(`/api/v1/teams/${teamA.teamId}/invoices`)).send({ amount_rub: 10.005 });
    expect(bad.status).toBe(400);
    // five invoices of team A, three of team B, issued at once on both replicas
    const amounts = [12200, 5000, 7000, 3000, 1000.5, 900, 800, 700];
    const teamOf = (i: number) => (i < 5 ? teamA : teamB);
    const res = await Promise.all(
      amounts.map((amount_rub, i) =>
        op(request(i % 2 ? b.url : a.url).post(`/api/v1/teams/${teamOf(i).teamId}/invoices`)).send({ amount_rub }),
      ),
    );
    for (const r of res) expect(r.status).toBe(201);
    const numbers = res.map((r) => r.body.number as string).sort();
    expect(numbers).toEqual(amounts.map((_, i) => `INV-2026-${String(i + 1).padStart(6, '0')}`));
    res.forEach((r, i) => issued.push({ id: r.body.id, number: r.body.number, amount_rub: amounts[i] }));
    expect(res[0].body).toMatchObject({ amount_rub: 12200, vat_rub: 2200, status: 'issued', vat_rate: '22' });
    expect(res[4].body).toMatchObject({ amount_rub: 1000.5, vat_rub: 180.42 }); // 1000.50 × 22 / 122 = 180.418…
    const list = await op(request(b.url).get(`/api/v1/teams/${teamA.teamId}/invoices`));
    expect(list.body.data.map((i: { number: string }) => i.number).sort()).toEqual(
      res
        .slice(0, 5)
        .map((r) => r.body.number)
        .sort(),
    );
    // another team's invoice is not found through this team
    expect((await op(request(a.url).get(`/api/v1/teams/${teamB.teamId}/invoices/${issued[0].id}/pdf`))).status).toBe(
      404,
    );

    const pdf = await pdfOf(a.url, res[0].body.pdf_url);
    keep('invoice.pdf', pdf);
    const text = await pdfText(pdf);
    expect(text).toContain(`Счёт на оплату № ${issued[0].number} от 15 октября 2026 г.`);
    expect(text).toContain(`ИНН ${SELLER.inn}`);
    expect(text).toContain(`ИНН ${BUYER_A.inn}`);
    expect(text).toContain(SELLER.account);
    expect(text).toContain(SELLER.bik);
    expect(text).toContain('Пополнение баланса доступа к API');
    expect(text).toContain('12 200,00');
    expect(text).toContain('В том числе НДС (22%):');
    expect(text).toContain('2 200,00');
    expect(text).toContain('Двенадцать тысяч двести рублей 00 копеек');
    // team A's five invoices were e-mailed to its address for documents, with the PDF attached; team B has none
    const pdfMails = () => smtp.messages.filter((m) => m.raw.includes('application/pdf'));
    await waitFor(() => pdfMails().length >= 5);
    expect(pdfMails().map((m) => m.to.join())).toEqual(Array(5).fill('buh@sber.test'));
    expect(pdfMails().some((m) => m.raw.includes(`${issued[0].number}.pdf`))).toBe(true);
  });

  it('credits a statement’s matched payment once: uploaded twice, and on both replicas at once', async () => {
    const [inv1, inv2, inv3, inv4, , inv6] = issued;
    const before = await admin.balance(teamA.apiKey);
    const beforeB = await admin.balance(teamB.apiKey);
    const file = oneCStatement([
      {
        number: '101',
        date: '16.10.2026',
        amount: '12200.00',
        payerInn: BUYER_A.inn,
        payerName: BUYER_A.legal_name,
        purpose: `Оплата по счёту № ${inv1.number} от 15.10.2026, в т.ч. НДС 22% 2200-00`,
      },
      {
        number: '102',
        date: '16.10.2026',
        amount: '4000.00',
        payerInn: BUYER_A.inn,
        payerName: BUYER_A.legal_name,
        purpose: `Оплата по счёту ${inv2.number}`,
      },
      {
        number: '103',
        date: '16.10.2026',
        amount: '7100.00',
        payerInn: BUYER_A.inn,
        payerName: BUYER_A.legal_name,
        purpose: `оплата по сч. ${inv3.number.toLowerCase()}`,
      },
      {
        number: '104',
        date: '16.10.2026',
        amount: '3000.00',
        payerInn: BUYER_B.inn,
        payerName: BUYER_B.legal_name,
        purpose: `Оплата по счёту ${inv4.number}`,
      },
      {
        number: '105',
        date: '16.10.2026',
        amount: '900.00',
        payerInn: BUYER_B.inn,
        payerName: BUYER_B.legal_name,
        purpose: 'Оплата по счёту INV-2026-999999',
      },
    ]);
    const upload = (url: string, bytes: Buffer) =>
      op(request(url).post('/api/v1/admin/bank-statements')).attach('file', bytes, 'kl_to_1c.txt');
    const first = await upload(a.url, file);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ credited: 1, unmatched: 4, credited_rub: 12200, account: SELLER.account });
    const byNumber = (body: { payments: { number: string }[] }) =>
      Object.fromEntries(body.payments.map((p) => [p.number, p]));
    expect(byNumber(first.body)).toMatchObject({
      '101': {
        status: 'credited',
        invoice_number: inv1.number,
        team_id: teamA.teamId,
        reference: `bank:101:2026-10-16:${BUYER_A.inn}`,
      },
      '102': { status: 'unmatched', reason: 'amount_mismatch', invoice_number: inv2.number },
      '103': { status: 'unmatched', reason: 'amount_mismatch', invoice_number: inv3.number },
      '104': { status: 'unmatched', reason: 'foreign_inn', invoice_number: inv4.number },
      '105': { status: 'unmatched', reason: 'unknown_invoice', invoice_number: 'INV-2026-999999' },
    });
    expect(await admin.balance(teamA.apiKey)).toBe(before + 12200);
    expect((await op(request(b.url).get(`/api/v1/admin/bank-statements/${first.body.id}`))).body).toEqual(first.body);

    // the same file again, then on both replicas at once: nothing more is credited
    const again = await upload(b.url, file);
    expect(again.body).toMatchObject({ credited: 0, credited_rub: 0, unmatched: 4 });
    expect(byNumber(again.body)['101']).toMatchObject({ status: 'already_credited' });
    const both = await Promise.all([upload(a.url, file), upload(b.url, file)]);
    for (const r of both) expect(r.body).toMatchObject({ credited: 0 });

    // a new statement paying team B's invoice, uploaded on both replicas at once: credited once
    const second = oneCStatement([
      {
        number: '77',
        date: '17.10.2026',
        amount: '900.00',
        payerInn: BUYER_B.inn,
        payerName: BUYER_B.legal_name,
        purpose: `Оплата счета ${inv6.number}`,
      },
    ]);
    const race = await Promise.all([upload(a.url, second), upload(b.url, second), upload(a.url, second)]);
    expect(race.map((r) => r.body.credited).sort()).toEqual([0, 0, 1]);
    expect(await admin.balance(teamB.apiKey)).toBe(beforeB + 900);
    expect(await admin.balance(teamA.apiKey)).toBe(before + 12200);

    const ledger = await a.get(BillingService).usage(teamA.teamId, 100);
    const credits = ledger.filter((e) => e.kind === 'top_up' && e.reference?.startsWith('bank:'));
    expect(credits.map((e) => [e.reference, e.amountMicro])).toEqual([
      [`bank:101:2026-10-16:${BUYER_A.inn}`, 12_200_000_000],
    ]);
    const statuses = (await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/invoices`))).body.data;
    expect(
      statuses.filter((i: { status: string }) => i.status === 'paid').map((i: { number: string }) => i.number),
    ).toEqual([inv1.number]);

    const broken = await op(request(a.url).post('/api/v1/admin/bank-statements')).attach(
      'file',
      Buffer.from('hello'),
      'x.txt',
    );
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_statement');
  });

  it('marks an invoice paid by hand once', async () => {
    const inv2 = issued[1];
    const before = await admin.balance(teamA.apiKey);
    const paid = await op(request(a.url).post(`/api/v1/admin/invoices/${inv2.id}/mark-paid`)).send({
      reference: 'pp-102-corrected',
    });
    expect(paid.status).toBe(200);
    expect(paid.body.invoice).toMatchObject({ status: 'paid', number: inv2.number });
    expect(paid.body.balance_rub).toBe(before + 5000);
    const retried = await op(request(b.url).post(`/api/v1/admin/invoices/${inv2.id}/mark-paid`)).send({
      reference: 'pp-102-corrected',
    });
    expect(retried.status).toBe(200);
    const other = await op(request(b.url).post(`/api/v1/admin/invoices/${inv2.id}/mark-paid`)).send({
      reference: 'another',
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('invoice_already_paid');
    expect(await admin.balance(teamA.apiKey)).toBe(before + 5000);
  });

  it('acts: the month’s charges in Moscow time, preliminary until closed, then frozen', async () => {
    const chat = (model: string, words: number) =>
      request(a.url)
        .post('/api/v1/chat')
        .set('api-key', teamA.apiKey)
        .send({ model, user_id: 'u', prompt: 'word '.repeat(words), max_tokens: 20 });
    setClock('2026-10-20T10:00:00Z');
    for (let i = 0; i < 2; i++) expect((await chat('gpt-4o', 3000)).status).toBe(200);
    expect((await chat('gpt-4o-mini', 3000)).status).toBe(200);
    // 00:30 on 1 November in Moscow: November's, though still 31 October in UTC
    setClock('2026-10-31T21:30:00Z');
    expect((await chat('gpt-4o', 3000)).status).toBe(200);
    const ledger = await a.get(BillingService).usage(teamA.teamId, 100);
    const charges = ledger.filter((e) => e.kind === 'charge');
    expect(charges).toHaveLength(4);
    const october = charges.filter((e) => e.createdAt < Date.parse('2026-10-31T21:00:00Z'));
    const microOf = (model: string) => -october.filter((e) => e.model === model).reduce((s, e) => s + e.amountMicro, 0);
    const octoberMicro = microOf('gpt-4o') + microOf('gpt-4o-mini');
    const octoberKopecks = Math.round(octoberMicro / 10_000);
    const octoberRub = octoberKopecks / 100;
    expect(octoberRub).toBeGreaterThan(1);

    setClock('2026-11-02T09:00:00Z');
    const open = await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-10`));
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ month: '2026-10', final: false, amount_rub: octoberRub, vat_rate: '22' });
    expect(open.body.lines).toMatchObject([
      { model: 'gpt-4o', requests: 2 },
      { model: 'gpt-4o-mini', requests: 1 },
    ]);
    // each line is its model's charges to the kopeck, and the lines add up to the total
    const lines = open.body.lines as { model: string; amount_rub: number; tokens: number }[];
    for (const l of lines) {
      expect(Math.abs(Math.round(l.amount_rub * 100) - microOf(l.model) / 10_000)).toBeLessThan(1);
      expect(l.tokens).toBeGreaterThan(3000);
    }
    expect(lines.reduce((s, l) => s + Math.round(l.amount_rub * 100), 0)).toBe(octoberKopecks);
    // VAT included at 22 %: total × 22 / 122, to the kopeck
    expect(open.body.vat_rub).toBe(Math.round((octoberKopecks * 22) / 122) / 100);
    const november = await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-11`));
    expect(november.body).toMatchObject({ final: false, lines: [{ requests: 1 }] });
    expect((await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-12`))).body.error.code).toBe(
      'month_in_future',
    );

    // closed on 4 November 00:00 Moscow (ACTS_CLOSE_DAYS = 3): frozen by the first request after
    setClock('2026-11-03T21:00:00Z');
    const closed = await op(request(b.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-10`));
    expect(closed.body).toMatchObject({
      final: true,
      amount_rub: octoberRub,
      vat_rate: '22',
      vat_rub: open.body.vat_rub,
    });
    // the seller's VAT rate changes: the closed act does not, the open month's does
    expect((await op(request(a.url).put('/api/v1/admin/seller')).send({ ...SELLER, vat_rate: 'none' })).status).toBe(
      200,
    );
    // the act was e-mailed once, when it was frozen
    await waitFor(() => smtp.messages.some((m) => m.raw.includes(`${closed.body.number}.pdf`)));
    const later = await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-10`));
    expect(later.body).toEqual(closed.body);
    const novemberNow = await op(request(a.url).get(`/api/v1/teams/${teamA.teamId}/acts?month=2026-11`));
    expect(novemberNow.body).toMatchObject({ final: false, vat_rate: 'none', vat_rub: 0 });

    const pdf = await pdfOf(a.url, closed.body.pdf_url);
    keep('act.pdf', pdf);
    const text = await pdfText(pdf);
    expect(text).toContain(`Акт № ${closed.body.number} от 31 октября 2026 г.`);
    expect(text).toContain('октябрь 2026 г.');
    expect(text).toContain(`ИНН ${SELLER.inn}`);
    expect(text).toContain(`ИНН ${BUYER_A.inn}`);
    expect(text).toContain('gpt-4o-mini');
    expect(text).toContain(closed.body.amount_rub.toFixed(2).replace('.', ','));
    expect(text).toContain('В том числе НДС (22%):');
    expect(text).toContain(rubInWords(octoberKopecks));
    expect(text).not.toContain('Предварительный');
    expect(smtp.messages.filter((m) => m.raw.includes(`${closed.body.number}.pdf`))).toHaveLength(1);
    const preliminary = await pdfText(await pdfOf(a.url, novemberNow.body.pdf_url));
    expect(preliminary).toContain('Предварительный');
    expect(preliminary).toContain('Без НДС');
  });
});
