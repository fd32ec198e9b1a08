/**
 * The Central Bank of Russia's daily rates endpoint (XML_daily.asp), test-only: a `ValCurs` list in
 * Windows-1251 with decimal commas and `Nominal`, as the CBR serves it. `setRates` changes what it
 * answers; `fail(status)` makes it answer an error until `recover()`.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encode } from 'iconv-lite';

export interface CbrValute {
  code: string;
  numCode: string;
  name: string;
  nominal: number;
  /** with a decimal comma, as published, e.g. "81,5345" */
  value: string;
}

/** The XML the CBR serves for `date` (DD.MM.YYYY), encoded in Windows-1251. */
export function cbrDailyXml(date: string, valutes: CbrValute[]): Buffer {
  const items = valutes
    .map(
      (v, i) =>
        `<Valute ID="R01${String(235 + i).padStart(3, '0')}"><NumCode>${v.numCode}</NumCode><CharCode>${v.code}</CharCode>` +
        `<Nominal>${v.nominal}</Nominal><Name>${v.name}</Name><Value>${v.value}</Value><VunitRate>${v.value}</VunitRate></Valute>`,
    )
    .join('');
  return encode(
    `<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="${date}" name="Foreign Currency Market">${items}</ValCurs>`,
    'win1251',
  );
}

/** USD at `value` plus yen and euro, the way a real list carries several currencies. */
export function usdList(value: string): CbrValute[] {
  return [
    { code: 'EUR', numCode: '978', name: 'Евро', nominal: 1, value: '94,1234' },
    { code: 'JPY', numCode: '392', name: 'Японских иен', nominal: 100, value: '53,7021' },
    { code: 'USD', numCode: '840', name: 'Доллар США', nominal: 1, value },
  ];
}

export class FakeCbr {
  private date = '28.11.2026';
  private valutes: CbrValute[] = usdList('81,5345');
  private failing: number | null = null;
  requests = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeCbr> {
    const ref: { self?: FakeCbr } = {};
    const server = createServer((req, res) => {
      ref.self!.requests++;
      if (!req.url?.startsWith('/scripts/XML_daily.asp')) {
        res.writeHead(404).end();
        return;
      }
      if (ref.self!.failing !== null) {
        res.writeHead(ref.self!.failing, { 'content-type': 'text/html' }).end('<html>Service unavailable</html>');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/xml; charset=windows-1251' })
        .end(cbrDailyXml(ref.self!.date, ref.self!.valutes));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    ref.self = new FakeCbr(server, `http://127.0.0.1:${port}/scripts/XML_daily.asp`);
    return ref.self;
  }

  /** What the next fetches get: the list of `date` (DD.MM.YYYY) with USD at `usdValue` ("81,5345"). */
  setRates(date: string, usdValue: string): void {
    this.date = date;
    this.valutes = usdList(usdValue);
  }

  fail(status = 503): void {
    this.failing = status;
  }

  recover(): void {
    this.failing = null;
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}
