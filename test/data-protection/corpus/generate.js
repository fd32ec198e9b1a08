#!/usr/bin/env node
/**
 * Generates the labelled personal-data corpus (corpus.jsonl beside this file): Russian and English chat messages,
 * support tickets and CSV extracts with personal data and near-misses (order numbers, dates, prices, product codes,
 * invalid check digits, lone first names). Deterministic (seeded PRNG): `node test/data-protection/corpus/generate.js`
 * rewrites the same file. Hand-written cases from handwritten.txt (one per line, `[[type:value]]` marks an entity, `\n`
 * a line break) are appended.
 *
 * Each line: {"id","lang","kind","text","entities":[{"type","start","end"}]} with UTF-16 offsets (JavaScript string
 * indices). Conventions: a person span covers the name without a title ("Mr", "г-н"); a passport span runs from the
 * series to the number; an address span from the street keyword (the house number in English) to the last of house,
 * building and flat; phone spans include the country code and brackets.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { rng, makers } = require('./values');
const N = require('./names');

const SEED = 20261128;
const r = rng(SEED);
const V = makers(r);
const e = (type, value) => ({ type, value });

/** Joins text parts and entity parts into a labelled snippet. */
function build(parts) {
  let text = '';
  const entities = [];
  for (const p of parts.flat(Infinity)) {
    if (p === null || p === undefined || p === '') continue;
    if (typeof p === 'string') text += p;
    else {
      entities.push({ type: p.type, start: text.length, end: text.length + p.value.length });
      text += p.value;
    }
  }
  return { text, entities };
}

// ---------- Russian names ----------
function ruPerson(caseIdx) {
  const female = r.chance(0.45);
  const F = female ? r.pick(N.RU_FEMALE) : r.pick(N.RU_MALE);
  const P = N.patronymic(r.pick(N.RU_PATRONYMIC), female);
  let S;
  const kind = r.next();
  if (kind < 0.8) S = N.surname(r.pick(N.RU_SURNAME_STEMS), female);
  else if (kind < 0.9) S = female ? N.RU_SKIY[2] : r.pick(N.RU_SKIY.slice(0, 2));
  else {
    const plain = r.pick(N.RU_PLAIN);
    S = [plain, plain, plain, plain];
  }
  const c = caseIdx;
  const init = (w) => w[0] + '.';
  const form = r.pick(['SFP', 'SFP', 'FPS', 'FS', 'SF', 'FP', 'SIO', 'SIOtight', 'IOS', 'IOStight']);
  switch (form) {
    case 'SFP':
      return `${S[c]} ${F[c]} ${P[c]}`;
    case 'FPS':
      return `${F[c]} ${P[c]} ${S[c]}`;
    case 'FS':
      return `${F[c]} ${S[c]}`;
    case 'SF':
      return `${S[c]} ${F[c]}`;
    case 'FP':
      return `${F[c]} ${P[c]}`;
    case 'SIO':
      return `${S[c]} ${init(F[0])} ${init(P[0])}`;
    case 'SIOtight':
      return `${S[c]} ${init(F[0])}${init(P[0])}`;
    case 'IOS':
      return `${init(F[0])} ${init(P[0])} ${S[c]}`;
    default:
      return `${init(F[0])}${init(P[0])} ${S[c]}`;
  }
}
const RU_PERSON_CTX = [
  [0, (p) => ['Меня зовут ', e('person', p), '.']],
  [0, (p) => ['Клиент: ', e('person', p)]],
  [0, (p) => [e('person', p), ' просит перезвонить.']],
  [0, (p) => ['Ответственный — ', e('person', p), '.']],
  [1, (p) => ['Заявка от ', e('person', p), ' принята в работу.']],
  [1, (p) => ['У ', e('person', p), ' не проходит оплата.']],
  [2, (p) => ['Передайте ', e('person', p), ', что документы готовы.']],
  [2, (p) => ['Напишите ', e('person', p), ' на почту.']],
  [3, (p) => ['Договор с ', e('person', p), ' подписан вчера.']],
  [3, (p) => ['Созвонились с ', e('person', p), ', ждём оплату.']],
];
const ruPersonPhrase = () => {
  const [c, f] = r.pick(RU_PERSON_CTX);
  return f(ruPerson(c));
};

// ---------- English names ----------
function enPerson() {
  const f = r.pick(N.EN_FIRST);
  const l = r.pick(N.EN_LAST);
  switch (r.pick(['FL', 'FL', 'FL', 'FML', 'FFL', 'TL', 'TFL'])) {
    case 'FML':
      return { pre: '', name: `${f} ${String.fromCharCode(65 + r.int(0, 25))}. ${l}` };
    case 'FFL':
      return { pre: '', name: `${f} ${r.pick(['Ann', 'Lee', 'Marie', 'James', 'Paul'])} ${l}` };
    case 'TL':
      return { pre: r.pick(['Mr. ', 'Mrs. ', 'Ms. ', 'Dr. ']), name: l };
    case 'TFL':
      return { pre: r.pick(['Mr. ', 'Dr. ']), name: `${f} ${l}` };
    default:
      return { pre: '', name: `${f} ${l}` };
  }
}
const EN_PERSON_CTX = [
  (p) => ['My name is ', p.pre, e('person', p.name), '.'],
  (p) => ['Please forward this to ', p.pre, e('person', p.name), ' in billing.'],
  (p) => ['Ticket opened by ', p.pre, e('person', p.name), '.'],
  (p) => ['Hi, this is ', p.pre, e('person', p.name), ' from accounting.'],
  (p) => ['CC: ', p.pre, e('person', p.name)],
  (p) => ['I spoke with ', p.pre, e('person', p.name), ' yesterday about the refund.'],
  (p) => ['Customer ', p.pre, e('person', p.name), ' reports that the invoice is wrong.'],
];
const enPersonPhrase = () => r.pick(EN_PERSON_CTX)(enPerson());

// ---------- other entities ----------
const email = (lang) => {
  const user = r.pick([
    'ivan.petrov',
    'a.smirnova',
    'john.smith',
    'k.ivanova88',
    'support-team',
    'mary_jones',
    'dima2001',
    'olga.k',
  ]);
  const dom = r.pick([
    'mail.ru',
    'yandex.ru',
    'gmail.com',
    'company.com',
    'corp.example.org',
    'bk.ru',
    'outlook.com',
    'пример.рф',
  ]);
  const v = `${user}${r.chance(0.3) ? r.int(1, 99) : ''}@${dom}`;
  return lang === 'ru'
    ? r.pick([
        ['почта: ', e('email', v)],
        ['пишите на ', e('email', v)],
        ['e-mail ', e('email', v)],
        [e('email', v), ' — мой адрес'],
      ])
    : r.pick([
        ['email: ', e('email', v)],
        ['write to ', e('email', v)],
        ['reach me at ', e('email', v)],
      ]);
};
const phone = (lang) => {
  const v = r.chance(0.75) ? V.phoneRu() : V.phoneIntl();
  return lang === 'ru'
    ? r.pick([
        ['тел. ', e('phone', v)],
        ['мой номер ', e('phone', v)],
        ['звоните: ', e('phone', v)],
        [e('phone', v), ' (мобильный)'],
        ['WhatsApp ', e('phone', v)],
      ])
    : r.pick([
        ['phone: ', e('phone', v)],
        ['call me on ', e('phone', v)],
        ['mobile ', e('phone', v)],
        ['reach me at ', e('phone', v)],
      ]);
};
const card = (lang) => {
  const v = V.card();
  return lang === 'ru'
    ? r.pick([
        ['карта ', e('card', v)],
        ['списали с карты ', e('card', v)],
        ['номер карты ', e('card', v)],
      ])
    : r.pick([
        ['card ', e('card', v)],
        ['charged to card ', e('card', v)],
        ['my card number is ', e('card', v)],
      ]);
};
const inn = (lang) => {
  const v = r.chance(0.5) ? V.inn10() : V.inn12();
  return lang === 'ru'
    ? r.pick([
        ['ИНН ', e('inn', v)],
        ['ИНН: ', e('inn', v)],
        ['ИНН организации ', e('inn', v)],
      ])
    : r.pick([
        ['INN ', e('inn', v)],
        ['TIN (INN): ', e('inn', v)],
      ]);
};
const snils = () => {
  if (r.chance(0.2)) return ['СНИЛС: ', e('snils', V.snilsDigits())];
  return r.pick([
    ['СНИЛС ', e('snils', V.snils())],
    ['страховой номер ', e('snils', V.snils())],
    [e('snils', V.snils()), ' — СНИЛС'],
  ]);
};
const passport = (lang) => {
  const { series, number } = V.passport();
  const sp = `${series.slice(0, 2)} ${series.slice(2)}`;
  if (lang === 'en') return ['passport ', e('passport', `${series} ${number}`)];
  return r.pick([
    ['паспорт ', e('passport', `${sp} ${number}`)],
    ['паспорт серия ', e('passport', `${series} номер ${number}`)],
    ['паспорт: серия ', e('passport', `${sp} № ${number}`)],
    ['серия и номер паспорта: ', e('passport', `${series}${number}`)],
    ['паспорт РФ ', e('passport', `${series} ${number}`)],
  ]);
};
const ogrn = () => (r.chance(0.6) ? ['ОГРН ', e('ogrn', V.ogrn())] : ['ОГРНИП ', e('ogrn', V.ogrnip())]);
const bank = (lang) => {
  const b = V.bik();
  const acc = V.account(b);
  const shown = r.chance(0.2)
    ? `${acc.slice(0, 5)} ${acc.slice(5, 8)} ${acc.slice(8, 9)} ${acc.slice(9, 13)} ${acc.slice(13)}`
    : acc;
  return lang === 'ru'
    ? r.pick([
        ['р/с ', e('bank_account', shown), ', БИК ', b],
        ['БИК ', b, ', счёт ', e('bank_account', shown)],
      ])
    : ['account ', e('bank_account', shown), ', BIK ', b];
};
const ip = (lang) => {
  const v = r.chance(0.7) ? V.ipv4() : V.ipv6();
  return lang === 'ru'
    ? r.pick([
        ['IP ', e('ip', v)],
        ['заходил с адреса ', e('ip', v)],
        ['сервер ', e('ip', v), ' не отвечает'],
      ])
    : r.pick([
        ['IP ', e('ip', v)],
        ['login from ', e('ip', v)],
        ['host ', e('ip', v), ' is down'],
      ]);
};
const address = (lang) => {
  if (lang === 'en') {
    const n = `${r.int(1, 2500)}${r.chance(0.2) ? 'B' : ''}`;
    const st = `${n} ${r.pick(N.EN_STREETS)} ${r.pick(['Street', 'St.', 'Avenue', 'Road', 'Lane', 'Drive'])}`;
    const apt = r.chance(0.3) ? `, Apt ${r.int(1, 300)}` : '';
    let v = st + apt;
    const tail = v.endsWith('.') ? '' : '.';
    return ['ship to ', e('address', v.endsWith('.') ? v.slice(0, -1) : v), v.endsWith('.') ? '.' : tail];
  }
  const kw = r.pick(['ул. ', 'улица ', 'пр-т ', 'пер. ']);
  const house = r.pick([
    `д. ${r.int(1, 150)}`,
    `дом ${r.int(1, 150)}`,
    `д.${r.int(1, 150)}`,
    `${r.int(1, 150)}к${r.int(1, 5)}`,
  ]);
  const flat = r.chance(0.5) ? `, кв. ${r.int(1, 400)}` : '';
  return ['адрес: ', r.pick(N.CITIES_RU), ', ', e('address', `${kw}${r.pick(N.RU_STREETS)}, ${house}${flat}`)];
};

// ---------- near-misses ----------
const ean13 = () => {
  const b = r.pick(['460', '590', '400', '500']) + r.digits(9);
  let s = 0;
  for (let i = 0; i < 12; i++) s += Number(b[i]) * (i % 2 ? 3 : 1);
  return b + ((10 - (s % 10)) % 10);
};
const date = () => {
  const d = String(r.int(1, 28)).padStart(2, '0');
  const m = String(r.int(1, 12)).padStart(2, '0');
  const y = r.int(2019, 2026);
  return r.pick([`${d}.${m}.${y}`, `${y}-${m}-${d}`, `${d}/${m}/${y}`]);
};
const price = () =>
  r.pick([
    `${r.int(1, 99)} ${r.digits(3)} руб.`,
    `${r.int(100, 9999)},${r.digits(2)} ₽`,
    `$${r.int(1, 9)},${r.digits(3)}.${r.digits(2)}`,
  ]);
const NEAR_RU = [
  () => `Заказ № ${r.digits(r.int(8, 12))} от ${date()}`,
  () => `номер заказа ${r.pick(['8', '7'])}${r.pick(['9', '4'])}${r.digits(9)}, сумма ${price()}`,
  () => `Трек-номер ${r.digits(14)}`,
  () => `артикул ${r.pick(['8-9', '8 9', '89'])}${r.digits(2)}-${r.digits(3)}-${r.digits(2)}-${r.digits(2)}`,
  () => `штрихкод ${ean13()}`,
  () => `версия приложения ${r.int(1, 9)}.${r.int(0, 20)}.${r.int(0, 9)}.${r.int(0, 300)}`,
  () => `созвон в ${r.int(10, 19)}:${r.pick(['00', '15', '30', '45'])}:00`,
  () => `ИНН ${V.badInn()} (проверьте, кажется с ошибкой)`,
  () => `карта ${V.badCard()} не проходит проверку`,
  () => `СНИЛС ${V.badSnils()} — неверный`,
  () => `счёт ${r.digits(20)} без БИК`,
  () => `серийный номер ${r.digits(10)}`,
  () => `код подтверждения ${r.digits(6)}`,
  () => `договор № ${V.inn10()} от ${date()}`,
  () => `Привет, ${r.pick(N.RU_MALE)[0]}!`,
  () => `офис в Москва-Сити, ${r.int(2, 60)} этаж`,
  () => `модель ${r.digits(3)}-${r.digits(3)}-${r.digits(4)}`,
  () => `доставка ${date()} с 10:00 до 18:00, стоимость ${price()}`,
  () => `номер обращения ${r.pick(['8', '7', '9'])}${r.digits(10)}`,
  () => `Спасибо, ${r.pick(N.RU_FEMALE)[0]}, всё получили.`,
];
const NEAR_EN = [
  () => `Order #${r.digits(r.int(8, 12))} placed on ${date()}`,
  () => `invoice INV-${r.digits(8)} for ${price()}`,
  () => `tracking number 1Z${r.digits(16)}`,
  () => `SKU ${r.digits(3)}-${r.digits(3)}-${r.digits(4)}`,
  () => `part no. 8-800-${r.digits(3)}`,
  () => `version ${r.int(1, 9)}.${r.int(0, 20)}.${r.int(0, 9)}.${r.int(0, 300)}`,
  () => `meeting at ${r.int(10, 19)}:${r.pick(['00', '30'])}:00 on ${date()}`,
  () => `card ${V.badCard()} was declined (invalid number)`,
  () => `Thanks, ${r.pick(N.EN_FIRST)}!`,
  () => `paid with Apple Pay, Visa Gold`,
  () => `barcode ${ean13()}`,
  () => `ticket ${r.digits(12)} is still open`,
  () => `Best regards, Support Team`,
  () => `our New York office`,
];

// ---------- snippets ----------
const ENTITY_RU = [
  ruPersonPhrase,
  ruPersonPhrase,
  email,
  phone,
  phone,
  card,
  inn,
  snils,
  passport,
  ogrn,
  bank,
  ip,
  address,
];
const ENTITY_EN = [enPersonPhrase, enPersonPhrase, email, phone, phone, card, inn, passport, bank, ip, address];

function chat(lang) {
  const pool = lang === 'ru' ? ENTITY_RU : ENTITY_EN;
  const near = lang === 'ru' ? NEAR_RU : NEAR_EN;
  const parts = [];
  const opener =
    lang === 'ru'
      ? r.pick(['Здравствуйте! ', 'Добрый день. ', '', 'Коллеги, '])
      : r.pick(['Hello! ', 'Hi team, ', '', 'Good morning. ']);
  parts.push(opener);
  const n = r.int(1, 3);
  for (let i = 0; i < n; i++) {
    const f = r.pick(pool);
    parts.push(f(lang), r.pick(lang === 'ru' ? ['. ', ', ', '; '] : ['. ', ', ', '; ']));
  }
  if (r.chance(0.5)) parts.push(r.pick(near)(), '.');
  return parts;
}

function ticket(lang) {
  const near = lang === 'ru' ? NEAR_RU : NEAR_EN;
  const lines = [];
  if (lang === 'ru') {
    lines.push([`Тема: ${r.pick(['Не проходит оплата', 'Возврат средств', 'Смена тарифа', 'Доступ к кабинету'])}`]);
    lines.push(r.pick([ruPersonPhrase, email, phone])('ru'));
    lines.push(r.pick([card, inn, passport, snils, bank, ogrn, ip])('ru'));
    lines.push([r.pick(near)()]);
  } else {
    lines.push([`Subject: ${r.pick(['Payment failed', 'Refund request', 'Plan change', 'Cannot log in'])}`]);
    lines.push(r.pick([enPersonPhrase, email, phone])('en'));
    lines.push(r.pick([card, ip, email, phone])('en'));
    lines.push([r.pick(near)()]);
  }
  return lines.map((l, i) => [i ? '\n' : '', l]);
}

function csv(lang) {
  const rows = r.int(2, 4);
  const out = [];
  if (lang === 'ru') {
    const variant = r.int(0, 2);
    if (variant === 0) {
      out.push('ФИО;Телефон;Email;Сумма заказа');
      for (let i = 0; i < rows; i++) {
        const [, pf] = RU_PERSON_CTX[0];
        const name = pf(ruPerson(0))[1];
        out.push([
          '\n',
          name,
          ';',
          e('phone', V.phoneRu()),
          ';',
          email('ru').filter((x) => typeof x !== 'string'),
          ';',
          price(),
        ]);
      }
    } else if (variant === 1) {
      out.push('Контрагент;ИНН;ОГРН;Договор');
      for (let i = 0; i < rows; i++)
        out.push([
          '\n',
          `ООО «${r.pick(['Ромашка', 'Вектор', 'Северный ветер', 'Альфа-Строй'])}»;`,
          e('inn', V.inn10()),
          ';',
          e('ogrn', V.ogrn()),
          ';',
          `Д-${r.digits(6)}`,
        ]);
    } else {
      out.push('Сотрудник;СНИЛС;Паспорт;Табельный номер');
      for (let i = 0; i < rows; i++) {
        const { series, number } = V.passport();
        out.push([
          '\n',
          e('person', ruPerson(0)),
          ';',
          e('snils', V.snils()),
          ';',
          e('passport', `${series} ${number}`),
          ';',
          r.digits(5),
        ]);
      }
    }
  } else {
    out.push('name,email,phone,order_id,amount');
    for (let i = 0; i < rows; i++) {
      const p = enPerson();
      const nm = p.pre ? p.pre.trim() + ' ' : '';
      const mail = `${r.pick(['jsmith', 'mary.b', 'k.lee', 'dan77'])}@${r.pick(['example.com', 'mail.co.uk'])}`;
      out.push([
        '\n',
        nm,
        e('person', p.name),
        ',',
        e('email', mail),
        ',',
        e('phone', V.phoneIntl()),
        `,ORD-${r.digits(6)},${r.int(5, 999)}.${r.digits(2)}`,
      ]);
    }
  }
  return out;
}

function negative(lang) {
  const near = lang === 'ru' ? NEAR_RU : NEAR_EN;
  const n = r.int(1, 3);
  return Array.from({ length: n }, (_, i) => [i ? '; ' : '', r.pick(near)()]);
}

/** Parses handwritten.txt: `[[type:value]]` marks an entity. */
function handwritten() {
  const file = path.join(__dirname, 'handwritten.txt');
  const out = [];
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!raw.trim() || raw.startsWith('//')) continue;
    const [lang, kind, body] = raw.split('\t');
    const parts = [];
    let rest = body.replace(/\\n/g, '\n');
    for (let m; (m = /\[\[([a-z_]+):(.+?)\]\]/.exec(rest));) {
      parts.push(rest.slice(0, m.index), e(m[1], m[2]));
      rest = rest.slice(m.index + m[0].length);
    }
    parts.push(rest);
    out.push({ lang, kind, ...build(parts) });
  }
  return out;
}

function generate() {
  const items = [];
  const plan = [
    ['ru', 'chat', chat, 260],
    ['en', 'chat', chat, 170],
    ['ru', 'ticket', ticket, 60],
    ['en', 'ticket', ticket, 40],
    ['ru', 'csv', csv, 45],
    ['en', 'csv', csv, 25],
    ['ru', 'negative', negative, 60],
    ['en', 'negative', negative, 40],
  ];
  for (const [lang, kind, fn, count] of plan)
    for (let i = 0; i < count; i++) items.push({ lang, kind, ...build(fn(lang)) });
  items.push(...handwritten());
  return items.map((it, i) => ({ id: i + 1, ...it }));
}

if (require.main === module) {
  const items = generate();
  fs.writeFileSync(path.join(__dirname, 'corpus.jsonl'), items.map((x) => JSON.stringify(x)).join('\n') + '\n');
  process.stdout.write(`wrote ${items.length} snippets\n`);
}

module.exports = { generate, SEED };
