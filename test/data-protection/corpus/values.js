/**
 * Values for the personal-data corpus: valid identifiers (check digits computed here, independently of the
 * detectors), names in their case forms, addresses, and the near-misses that must not be flagged.
 */
'use strict';

/** mulberry32: a small seeded PRNG, so the corpus is the same on every run. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (arr) => arr[Math.floor(next() * arr.length)];
  const digits = (n) => Array.from({ length: n }, () => int(0, 9)).join('');
  return { next, int, pick, digits, chance: (p) => next() < p };
}

const luhnDigit = (body) => {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
};
const wsum = (s, w) => w.reduce((a, x, i) => a + x * Number(s[i]), 0);
const innCheck = (s, w) => String((wsum(s, w) % 11) % 10);
const mod = (s, m) => [...s].reduce((r, c) => (r * 10 + Number(c)) % m, 0);

function makers(r) {
  const card = () => {
    const kind = r.pick(['visa', 'visa', 'mc', 'mir', 'mir', 'mc2', 'amex', 'unionpay']);
    const prefix = {
      visa: '4' + r.digits(5),
      mc: String(r.int(51, 55)) + r.digits(4),
      mc2: String(r.int(2221, 2720)) + r.digits(2),
      mir: '220' + r.int(0, 4) + r.digits(2),
      amex: r.pick(['34', '37']) + r.digits(4),
      unionpay: '62' + r.digits(4),
    }[kind];
    const len = kind === 'amex' ? 15 : 16;
    const body = prefix + r.digits(len - 1 - prefix.length);
    const d = body + luhnDigit(body);
    if (len === 15) return r.chance(0.5) ? `${d.slice(0, 4)} ${d.slice(4, 10)} ${d.slice(10)}` : d;
    const sep = r.pick([' ', ' ', '-', '']);
    return [d.slice(0, 4), d.slice(4, 8), d.slice(8, 12), d.slice(12)].join(sep);
  };
  const badCard = () => {
    const body = '4' + r.digits(14);
    const wrong = String((Number(luhnDigit(body)) + r.int(1, 9)) % 10);
    const d = body + wrong;
    return [d.slice(0, 4), d.slice(4, 8), d.slice(8, 12), d.slice(12)].join(' ');
  };
  const inn10 = () => {
    const b = String(r.int(1, 92)).padStart(2, '0') + r.digits(7);
    return b + innCheck(b, [2, 4, 10, 3, 5, 9, 4, 6, 8]);
  };
  const inn12 = () => {
    let b = String(r.int(1, 92)).padStart(2, '0') + r.digits(8);
    b += innCheck(b, [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
    return b + innCheck(b, [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
  };
  const badInn = () => {
    const good = r.chance(0.5) ? inn10() : inn12();
    return good.slice(0, -1) + String((Number(good.slice(-1)) + r.int(1, 9)) % 10);
  };
  const snilsDigits = () => {
    const b = String(r.int(2000000, 999999999)).padStart(9, '0');
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += Number(b[i]) * (9 - i);
    let c = sum % 101;
    if (c === 100) c = 0;
    return b + String(c).padStart(2, '0');
  };
  const fmtSnils = (d, sep = ' ') => `${d.slice(0, 3)}-${d.slice(3, 6)}-${d.slice(6, 9)}${sep}${d.slice(9)}`;
  const snils = () => fmtSnils(snilsDigits(), r.pick([' ', ' ', '-']));
  const badSnils = () => {
    const d = snilsDigits();
    return fmtSnils(d.slice(0, 9) + String((Number(d.slice(9)) + r.int(1, 50)) % 100).padStart(2, '0'));
  };
  const ogrn = () => {
    const b = r.pick(['1', '5']) + String(r.int(2, 24)).padStart(2, '0') + r.digits(9);
    return b + String(mod(b, 11) % 10);
  };
  const ogrnip = () => {
    const b = '3' + String(r.int(4, 24)).padStart(2, '0') + r.digits(11);
    return b + String(mod(b, 13) % 10);
  };
  const bik = () => '04' + r.pick(['4525', '4030', '0173', '6577', '5004', '4583']) + r.digits(3);
  const account = (b) => {
    const head = r.pick(['40817810', '40702810', '40802810', '42301810', '40817978']);
    const tail = r.digits(11);
    // the 9th digit is the control key: choose it so that BIK tail + account weighted 7,1,3 sums to 0 mod 10
    for (let k = 0; k < 10; k++) {
      const acc = head + k + tail;
      const d = b.slice(6) + acc;
      let sum = 0;
      for (let i = 0; i < 23; i++) sum += ([7, 1, 3][i % 3] * Number(d[i])) % 10;
      if (sum % 10 === 0) return acc;
    }
    throw new Error('no control key');
  };
  const passport = () => {
    const series =
      String(r.int(1, 99)).padStart(2, '0') + String(r.pick([r.int(0, 24), r.int(97, 99)])).padStart(2, '0');
    const number = String(r.int(100000, 999999));
    return { series, number };
  };
  const phoneRu = () => {
    const code = r.pick(['916', '903', '925', '977', '999', '495', '499', '812', '343', '800', '926', '985', '383']);
    const n = r.digits(7);
    const [a, b, c] = [n.slice(0, 3), n.slice(3, 5), n.slice(5)];
    return r.pick([
      `+7 (${code}) ${a}-${b}-${c}`,
      `+7${code}${n}`,
      `8 ${code} ${a} ${b} ${c}`,
      `8(${code})${n}`,
      `8-${code}-${a}-${b}-${c}`,
      `+7 ${code} ${a}-${b}-${c}`,
      `+7-${code}-${a}-${b}${c}`,
      `8 (${code}) ${a}-${b}-${c}`,
      `8${code}${n}`,
      `+7 ${code} ${a} ${b}${c}`,
    ]);
  };
  const phoneIntl = () =>
    r.pick([
      () => `+44 20 ${r.digits(4)} ${r.digits(4)}`,
      () => `+1 (${r.int(201, 989)}) ${r.digits(3)}-${r.digits(4)}`,
      () => `+1 ${r.int(201, 989)} ${r.digits(3)} ${r.digits(4)}`,
      () => `+49 30 ${r.digits(8)}`,
      () => `+33 1 ${r.digits(2)} ${r.digits(2)} ${r.digits(2)} ${r.digits(2)}`,
      () => `+375 29 ${r.digits(3)}-${r.digits(2)}-${r.digits(2)}`,
      () => `+998 90 ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
      () => `+86${r.digits(11)}`,
      () => `+380 44 ${r.digits(3)} ${r.digits(4)}`,
      () => `+971 50 ${r.digits(3)} ${r.digits(4)}`,
    ])();
  const ipv4 = () => [r.int(1, 223), r.int(0, 255), r.int(0, 255), r.int(1, 254)].join('.');
  const hex = () => r.int(0, 0xffff).toString(16);
  const ipv6 = () =>
    r.pick([
      () => `2001:db8:${hex()}:${hex()}::${hex()}`,
      () => `fe80::${hex()}:${hex()}:${hex()}:${hex()}`,
      () => Array.from({ length: 8 }, hex).join(':'),
      () => `2a02:6b8::${hex()}`,
    ])();
  return {
    card,
    badCard,
    inn10,
    inn12,
    badInn,
    snils,
    snilsDigits,
    badSnils,
    ogrn,
    ogrnip,
    bik,
    account,
    passport,
    phoneRu,
    phoneIntl,
    ipv4,
    ipv6,
  };
}

module.exports = { rng, makers, luhnDigit };
