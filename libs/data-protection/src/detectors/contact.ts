/** Contact data: e-mail addresses, phone numbers (Russian +7/8 in the usual spellings, international E.164), IP addresses. */
import { isIPv6 } from 'node:net';
import { before, bounded, digitsOnly, keywordBefore, notPersonalBefore } from './context';
import { match, PiiMatch } from './types';

const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}_%+-]+(?:\.[\p{L}\p{N}_%+-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_-])/gu;

function emails(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(EMAIL)) out.push(match('email', text, m.index, m.index + m[0].length));
  return out;
}

const SEP = String.raw`[ \-.]?`;
/**
 * Russian numbers: +7 or 8 (or 7 right after a phone keyword), a 3-digit code (in brackets or not) starting with 3, 4,
 * 7, 8 or 9, then 7 digits grouped 3-2-2, 3-4 or not at all; separators are single spaces, dashes or dots.
 */
const RU_PHONE = bounded(
  String.raw`(?:\+\s?7|8|7)${SEP}(?:\(\s?[34789]\d{2}\s?\)|[34789]\d{2})${SEP}\d{3}${SEP}\d{2}${SEP}\d{2}|(?:\+\s?7|8|7)${SEP}(?:\(\s?[34789]\d{2}\s?\)|[34789]\d{2})${SEP}\d{3}${SEP}\d{4}`,
);
/** E.164 with a plus: country code and 7-14 more digits, optionally grouped by spaces, dashes, dots or brackets. */
const INTL_PHONE = /(?<![\p{L}\p{N}_+])\+[1-9]\d*(?:[ \-.]?\(\d+\)|[ \-.]\d+)*(?![\p{L}\p{N}_])/gu;
const PHONE_KEY = /(?:тел|phone|моб|mobile|cell|whatsapp|telegram|позвон|звон|call|sms|смс|номер)/;

function phones(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  const taken = new Set<number>();
  for (const m of text.matchAll(RU_PHONE)) {
    const start = m.index;
    const raw = m[0];
    const plus = raw.startsWith('+');
    // without the plus: not after an order/product keyword, and a leading 7 only after a phone keyword
    if (
      !plus &&
      (notPersonalBefore(text, start) || (raw.startsWith('7') && !keywordBefore(text, start, PHONE_KEY, 30)))
    )
      continue;
    taken.add(start);
    out.push(match('phone', text, start, start + raw.length));
  }
  for (const m of text.matchAll(INTL_PHONE)) {
    if (taken.has(m.index) || m[0].startsWith('+7')) continue;
    const d = digitsOnly(m[0]);
    if (d.length < 8 || d.length > 15) continue;
    out.push(match('phone', text, m.index, m.index + m[0].length));
  }
  return out;
}

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = new RegExp(String.raw`(?<![\p{L}\p{N}_.])${OCTET}(?:\.${OCTET}){3}(?![\p{L}\p{N}_]|\.\d)`, 'gu');
/** Candidates for IPv6 (hex groups and colons, maybe an embedded IPv4), confirmed by node:net. */
const IPV6 = /(?<![\p{L}\p{N}_:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![\p{L}\p{N}_:])/gu;
/** A version number ("version 1.2.3.4", "версия приложения 7.1.0.2", "v1.2.3.4") looks like an IPv4 address. */
const VERSION_BEFORE =
  /(?:(?<![a-zа-яё])v|(?:version|версия|версии|release|релиз|build|сборка|ver\.)[^\d\n.,;]{0,24})$/;

function ips(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(IPV4)) {
    if (VERSION_BEFORE.test(before(text, m.index, 40))) continue;
    out.push(match('ip', text, m.index, m.index + m[0].length));
  }
  for (const m of text.matchAll(IPV6)) {
    let value = m[0];
    if (value.endsWith('.')) value = value.slice(0, -1);
    if ((value.match(/[0-9A-Fa-f]+/g) ?? []).length < 2 || !isIPv6(value)) continue;
    out.push(match('ip', text, m.index, m.index + value.length));
  }
  return out;
}

export const contactDetectors = { email: emails, phone: phones, ip: ips };
