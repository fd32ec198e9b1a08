import { decode } from 'iconv-lite';

/**
 * The 1C bank exchange format (1CClientBankExchange, versions 1.02–1.03) as banks export
 * statements: `key=value` lines in Windows-1251 (or CP866 when `Кодировка=DOS`), a header, account
 * sections (`СекцияРасчСчет` … `КонецРасчСчет`) and one `СекцияДокумент=<kind>` … `КонецДокумента`
 * section per document, ending with `КонецФайла`.
 */

export interface StatementDocument {
  /** the section's kind, e.g. "Платежное поручение" */
  kind: string;
  /** Номер */
  number: string;
  /** Дата as YYYY-MM-DD */
  date: string;
  /** Сумма in kopecks */
  amountKopecks: number;
  payerInn: string;
  payerName: string;
  payerAccount: string;
  recipientInn: string;
  recipientAccount: string;
  purpose: string;
}

export interface ParsedStatement {
  /** РасчСчет of the header (the account the statement is of), or '' */
  account: string;
  /** ДатаНачала / ДатаКонца as YYYY-MM-DD, or null */
  dateFrom: string | null;
  dateTo: string | null;
  documents: StatementDocument[];
}

export class StatementFormatError extends Error {}

const SIGNATURE = '1CClientBankExchange';

/** Decodes and parses a statement file; StatementFormatError names what is wrong. */
export function parseOneCStatement(bytes: Buffer): ParsedStatement {
  const text = decodeStatement(bytes);
  const lines = text.split(/\r\n|\n|\r/).map((l) => l.trim());
  if (lines[0] !== SIGNATURE) throw new StatementFormatError(`the file does not start with ${SIGNATURE}`);
  const header = new Map<string, string>();
  const documents: StatementDocument[] = [];
  let doc: Map<string, string> | null = null;
  let docKind = '';
  let inAccount = false;
  let ended = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    const value = eq < 0 ? '' : line.slice(eq + 1).trim();
    if (key === 'КонецФайла') {
      ended = true;
      break;
    }
    if (doc) {
      if (key === 'КонецДокумента') {
        documents.push(toDocument(docKind, doc, documents.length + 1));
        doc = null;
      } else if (!doc.has(key)) doc.set(key, value);
      continue;
    }
    if (key === 'СекцияДокумент') {
      doc = new Map();
      docKind = value;
    } else if (key === 'СекцияРасчСчет') inAccount = true;
    else if (key === 'КонецРасчСчет') inAccount = false;
    else if (!inAccount && !header.has(key)) header.set(key, value);
  }
  if (doc) throw new StatementFormatError('a СекцияДокумент has no КонецДокумента');
  if (!ended) throw new StatementFormatError('the file has no КонецФайла');
  return {
    account: header.get('РасчСчет') ?? '',
    dateFrom: optionalDate(header.get('ДатаНачала')),
    dateTo: optionalDate(header.get('ДатаКонца')),
    documents,
  };
}

/**
 * Windows-1251 (the format's `Кодировка=Windows`), CP866 when the header read as CP866 says
 * `Кодировка=DOS`, or UTF-8 when the bytes are valid UTF-8 with the Cyrillic end marker (some banks
 * export so).
 */
function decodeStatement(bytes: Buffer): string {
  const utf8 = bytes.toString('utf8');
  if (!utf8.includes('\uFFFD') && utf8.includes('КонецФайла')) return utf8;
  const dos = decode(bytes, 'cp866');
  return /^Кодировка=DOS\s*$/im.test(dos) ? dos : decode(bytes, 'win1251');
}

function toDocument(kind: string, f: Map<string, string>, position: number): StatementDocument {
  const where = `document ${position} (${kind || 'no kind'})`;
  const number = f.get('Номер') ?? '';
  if (!number) throw new StatementFormatError(`${where} has no Номер`);
  const date = optionalDate(f.get('Дата'));
  if (!date) throw new StatementFormatError(`${where} has no valid Дата (DD.MM.YYYY)`);
  const amountKopecks = parseAmount(f.get('Сумма') ?? '');
  if (amountKopecks === null) throw new StatementFormatError(`${where} has no valid Сумма`);
  return {
    kind,
    number,
    date,
    amountKopecks,
    payerInn: f.get('ПлательщикИНН') ?? '',
    payerName: f.get('Плательщик1') ?? f.get('Плательщик') ?? '',
    payerAccount: f.get('ПлательщикСчет') ?? f.get('ПлательщикРасчСчет') ?? '',
    recipientInn: f.get('ПолучательИНН') ?? '',
    recipientAccount: f.get('ПолучательСчет') ?? f.get('ПолучательРасчСчет') ?? '',
    purpose: f.get('НазначениеПлатежа') ?? '',
  };
}

/** "12200.00" or "12200,5" or "12200" → kopecks. */
function parseAmount(s: string): number | null {
  const m = /^(\d+)(?:[.,](\d{1,2}))?$/.exec(s.replace(/\s/g, ''));
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** DD.MM.YYYY → YYYY-MM-DD (null when absent or malformed). */
function optionalDate(s: string | undefined): string | null {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(s ?? '');
  return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
}

/** Invoice numbers mentioned in a payment's purpose (INV-YYYY-NNNNNN, any case, any separators around). */
export function invoiceNumbersIn(purpose: string): string[] {
  return [...new Set([...purpose.matchAll(/INV-(\d{4})-(\d{6})/gi)].map((m) => `INV-${m[1]}-${m[2]}`))];
}
