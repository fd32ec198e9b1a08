import { decode, encodingExists } from 'iconv-lite';
import { Parser } from 'htmlparser2';

/** One currency of the CBR daily list. */
export interface CbrRate {
  /** ISO letter code, e.g. USD */
  code: string;
  /** units the value is quoted for (e.g. 100 for JPY) */
  nominal: number;
  /** `Value` as published, with a decimal point (e.g. "81.5345") */
  value: string;
  /** RUB per one unit: value / nominal, as an exact decimal string */
  rate: string;
}

/** The CBR daily list: its date and the rates by letter code. */
export interface CbrDaily {
  /** the date the rates are set for, YYYY-MM-DD */
  date: string;
  rates: Map<string, CbrRate>;
}

export class CbrXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CbrXmlError';
  }
}

/** The encoding the XML prolog declares (the CBR's is windows-1251), or windows-1251 when it declares none. */
function declaredEncoding(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const m = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
  const name = m?.[1] ?? 'windows-1251';
  if (!encodingExists(name)) throw new CbrXmlError(`unsupported XML encoding "${name}"`);
  return name;
}

/** "81,5345" → "81.5345" (the CBR writes a decimal comma). */
function decimal(raw: string, what: string): string {
  const v = raw.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(v)) throw new CbrXmlError(`${what}: "${raw}" is not a decimal number`);
  return v;
}

/** value / nominal as a decimal string, exact (nominals are powers of ten). */
function divide(value: string, nominal: number): string {
  if (nominal === 1) return value;
  const zeros = Math.log10(nominal);
  if (!Number.isInteger(zeros)) return String(Number(value) / nominal);
  const [int, frac = ''] = value.split('.');
  const digits = int.padStart(zeros + 1, '0') + frac;
  const point = digits.length - frac.length - zeros;
  const out = `${digits.slice(0, point)}.${digits.slice(point)}`.replace(/^0+(?=\d)/, '').replace(/\.?0+$/, '');
  return out === '' ? '0' : out;
}

/**
 * Parses the CBR's XML_daily.asp answer: `<ValCurs Date="DD.MM.YYYY">` with one `<Valute>` per
 * currency (`CharCode`, `Nominal`, `Value` with a decimal comma), decoded from the encoding its
 * prolog declares (Windows-1251).
 */
export function parseCbrDaily(bytes: Buffer): CbrDaily {
  const text = decode(bytes, declaredEncoding(bytes));
  let date: string | null = null;
  const rates = new Map<string, CbrRate>();
  let current: Record<string, string> | null = null;
  let field: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'ValCurs') {
          const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(attrs.Date ?? '');
          if (!m) throw new CbrXmlError(`ValCurs Date "${attrs.Date ?? ''}" is not DD.MM.YYYY`);
          date = `${m[3]}-${m[2]}-${m[1]}`;
        } else if (name === 'Valute') current = {};
        else if (current) field = name;
      },
      ontext(t) {
        if (current && field) current[field] = (current[field] ?? '') + t;
      },
      onclosetag(name) {
        if (name === 'Valute' && current) {
          const code = (current.CharCode ?? '').trim();
          const nominal = Number((current.Nominal ?? '').trim());
          if (!/^[A-Z]{3}$/.test(code)) throw new CbrXmlError(`Valute CharCode "${code}" is not a currency code`);
          if (!Number.isInteger(nominal) || nominal < 1)
            throw new CbrXmlError(`${code}: Nominal "${current.Nominal ?? ''}" is not a positive integer`);
          const value = decimal(current.Value ?? '', `${code} Value`);
          rates.set(code, { code, nominal, value, rate: divide(value, nominal) });
          current = null;
        }
        field = null;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  if (date === null) throw new CbrXmlError('no ValCurs element with a Date');
  return { date, rates };
}
