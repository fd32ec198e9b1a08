/** Contact data: e-mail addresses, phone numbers (Russian +7/8 in the usual spellings, international E.164), IP addresses. */
import { isIPv6 } from 'node:net';
import { before, digitsOnly, keywordBefore, notPersonalBefore } from './context';
import { digitBounded } from './identifiers';
import { NumberCluster, TextScan } from './scan';
import { match, PiiMatch } from './types';

/** An e-mail address starting exactly where its local part starts (found from each "@" by indexOf). */
const EMAIL =
  /[\p{L}\p{N}_%+-]+(?:\.[\p{L}\p{N}_%+-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_-])/uy;
const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;

function emails(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  let covered = -1;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (at < covered) continue;
    // the local part: the run of address characters before the "@" (at most 64)
    let from = at;
    while (from > 0 && at - from <= 64 && LOCAL_CHAR.test(text[from - 1])) from--;
    if (at - from > 64 || from === at) continue;
    EMAIL.lastIndex = 0;
    const m = EMAIL.exec(text.slice(from, at + 256));
    if (!m) continue;
    covered = from + m[0].length;
    out.push(match('email', text, from, covered));
  }
  return out;
}

const SEP = String.raw`[ \-.]?`;
const CODE = String.raw`(?:\(\s?[34789]\d{2}\s?\)|[34789]\d{2})`;
/**
 * Russian numbers: +7 or 8 (or 7 right after a phone keyword), a 3-digit code (in brackets or not) starting with 3, 4,
 * 7, 8 or 9, then 7 digits grouped 3-2-2, 3-4 or not at all; separators are single spaces, dashes or dots.
 */
const RU_PHONE = digitBounded(
  String.raw`(?<!\+)(?:\+\s?7|8|7)${SEP}${CODE}${SEP}\d{3}(?:${SEP}\d{2}${SEP}\d{2}|${SEP}\d{4})`,
);
/** E.164 with a plus: country code and more digits, grouped by spaces, dashes, dots or brackets; 8-15 digits in all. */
const INTL_PHONE = /(?<![\d+])\+[1-9]\d*(?:[ \-.]?\(\d+\)|[ \-.]\d+)*(?!\d)/g;
const PHONE_KEY = /(?:тел|phone|моб|mobile|cell|whatsapp|telegram|позвон|звон|call|sms|смс|номер)/;

function phones(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  const taken = new Set<number>();
  for (const m of scan.inClusters(RU_PHONE, 10)) {
    // without the plus: not after an order/product keyword, and a leading 7 only after a phone keyword
    if (
      !m.value.startsWith('+') &&
      (notPersonalBefore(text, m.start) || (m.value.startsWith('7') && !keywordBefore(text, m.start, PHONE_KEY, 30)))
    )
      continue;
    taken.add(m.start);
    out.push(match('phone', text, m.start, m.end));
  }
  for (const m of scan.inClusters(INTL_PHONE, 8, (c) => c.value.includes('+'))) {
    if (taken.has(m.start) || m.value.startsWith('+7')) continue;
    const d = digitsOnly(m.value);
    if (d.length >= 8 && d.length <= 15) out.push(match('phone', text, m.start, m.end));
  }
  return out;
}

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = new RegExp(String.raw`(?<![\d.])${OCTET}(?:\.${OCTET}){3}(?!\.?\d)`, 'g');
/** A version number ("version 1.2.3.4", "версия приложения 7.1.0.2", "v1.2.3.4") looks like an IPv4 address. */
const VERSION_BEFORE =
  /(?:(?<![a-zа-яё])v|(?:version|версия|версии|release|релиз|build|сборка|ver\.)[^\d\n.,;]{0,24})$/;
/** An IPv6 candidate around a colon: hex groups and colons, maybe an embedded IPv4; confirmed by node:net. */
const IPV6 =
  /(?<![0-9A-Za-z_:.\u00C0-\u024F\u0400-\u04FF])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![0-9A-Za-z_:\u00C0-\u024F\u0400-\u04FF])/g;
const HEXISH = /[0-9A-Fa-f:.]/;
const threeDots = (c: NumberCluster): boolean => {
  const a = c.value.indexOf('.');
  const b = a < 0 ? -1 : c.value.indexOf('.', a + 1);
  return b >= 0 && c.value.indexOf('.', b + 1) >= 0;
};

function ips(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  for (const m of scan.inClusters(IPV4, 4, threeDots))
    if (!VERSION_BEFORE.test(before(text, m.start, 40))) out.push(match('ip', text, m.start, m.end));
  let covered = -1;
  for (let at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) {
    if (at < covered || !(HEXISH.test(text[at + 1] ?? '') || HEXISH.test(text[at - 1] ?? ''))) continue;
    let from = at;
    while (from > 0 && at - from < 45 && HEXISH.test(text[from - 1])) from--;
    let to = at + 1;
    while (to < text.length && to - from < 50 && HEXISH.test(text[to])) to++;
    covered = to;
    const window = text.slice(Math.max(0, from - 1), to + 1);
    if (window.indexOf(':', window.indexOf(':') + 1) < 0) continue; // IPv6 has at least two colons
    for (const m of window.matchAll(IPV6)) {
      let value = m[0];
      if (value.endsWith('.')) value = value.slice(0, -1);
      if ((value.match(/[0-9A-Fa-f]+/g) ?? []).length < 3 || !isIPv6(value)) continue; // "a::b", "::1": too short to tell
      const start = Math.max(0, from - 1) + m.index;
      out.push(match('ip', text, start, start + value.length));
    }
  }
  return out;
}

export const contactDetectors = { email: emails, phone: phones, ip: ips };
