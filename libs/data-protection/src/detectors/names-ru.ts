/**
 * Names of people in Russian: surname, first name and patronymic in any order and any case form, and surnames with
 * initials ("Иванов И. И.", "И.И. Иванов"). First names come from the dictionary in ru-first-names.ts (every case form
 * derived here); patronymics and surnames are recognised by their suffixes. One word alone (a first name, a surname)
 * is not reported: two parts of a name are needed.
 */
import { RU_FEMALE_FIRST_NAMES, RU_MALE_FIRST_NAMES } from './ru-first-names';
import { match, PiiMatch } from './types';

const IRREGULAR: Record<string, string[]> = {
  павел: ['павла', 'павлу', 'павлом', 'павле'],
  лев: ['льва', 'льву', 'львом', 'льве'],
  пётр: ['петра', 'петру', 'петром', 'петре'],
  петр: ['петра', 'петру', 'петром', 'петре'],
  любовь: ['любови', 'любовью'],
};

const GKH = /[гкхжшчщ]$/;

/** Nominative → all case forms (lower case). */
export function firstNameForms(nominative: string): string[] {
  const n = nominative.toLowerCase();
  if (IRREGULAR[n]) return [n, ...IRREGULAR[n]];
  const stem = n.slice(0, -1);
  if (n.endsWith('ия')) return [n, stem + 'и', stem + 'ю', stem + 'ей', stem + 'ею'];
  if (n.endsWith('ья')) return [n, stem + 'и', stem + 'е', stem + 'ю', stem + 'ей', stem + 'ёй', stem + 'ею'];
  if (n.endsWith('я')) return [n, stem + 'и', stem + 'е', stem + 'ю', stem + 'ей', stem + 'ёй', stem + 'ею'];
  if (n.endsWith('а'))
    return [n, stem + (GKH.test(stem) ? 'и' : 'ы'), stem + 'е', stem + 'у', stem + 'ой', stem + 'ою'];
  if (n.endsWith('ий')) return [n, stem + 'я', stem + 'ю', stem + 'ем', stem + 'и'];
  if (n.endsWith('й') || n.endsWith('ь')) return [n, stem + 'я', stem + 'ю', stem + 'ем', stem + 'е'];
  return [n, n + 'а', n + 'у', n + (/[жшчщц]$/.test(n) ? 'ем' : 'ом'), n + 'е'];
}

const FIRST_NAMES = new Set<string>(
  `${RU_MALE_FIRST_NAMES} ${RU_FEMALE_FIRST_NAMES}`
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((n) => [...firstNameForms(n), ...firstNameForms(n).map((f) => f.replace(/ё/g, 'е'))]),
);

/** Patronymics in every case: -ович/-евич/-ьич (+а, у, ем, е), -овна/-евна/-ична/-инична (+ы, е, у, ой). */
const PATRONYMIC = /(?:ович|евич|ьич)(?:а|у|ем|е)?$|(?:овн|евн|ичн)(?:а|ы|е|у|ой|ою)$/;
/** Surnames by suffix, in every case and both genders. */
const SURNAME =
  /(?:ов|ев|ёв|ин|ын)(?:а|у|ым|ом|е|ой|ою|ы|ых|ыми)?$|(?:ск|цк)(?:ий|ого|ому|им|ом|ая|ой|ую|ие|их)$|(?:енко|ко|ук|юк|ян|янц|дзе|швили|ых|их|ман|берг|штейн|ич)$/;

/** Capitalised words with surname-like endings that are not surnames (sentence starts, places, things). */
const NOT_SURNAME = new Set(
  `магазин бензин кофеин витамин карантин мессенджер менеджер интернет компьютер ростов саратов киров иваново кемерово
  тамбов брянск курск томск омск минск цех кабинет готов здоров берлин пекин лондон оплата доставка привет спасибо
  пожалуйста срочно добрый уважаемый уважаемая коллеги звоните напишите паспорт серия номер снилс инн огрн договор
  счет счёт банк сбербанк тинькофф альфа москва петербург россия казань уфа сочи новгород клиент офис здравствуйте
  доброе господин госпожа товарищ гражданин гражданка директор сотрудник оператор врач доктор коллега ооо ип зао пао ао`.split(
    /\s+/,
  ),
);

/** Capitalised words (optionally hyphenated) and initials, each with its position. */
const TOKEN = /(?<![0-9A-Za-zА-Яа-яЁё])(?:[А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?|[А-ЯЁ]\.)(?![а-яё])/g;

/** First name, Patronymic, Surname, Initial, other capitalised Word, a word that is never part of a name (X). */
type Kind = 'F' | 'P' | 'S' | 'I' | 'W' | 'X';
interface Token {
  start: number;
  end: number;
  kind: Kind;
}

/** Kinds of the words seen so far (names repeat within and across texts); cleared when it grows large. */
const kindCache = new Map<string, Kind>();

function kindOf(word: string): Kind {
  let kind = kindCache.get(word);
  if (kind === undefined) {
    if (kindCache.size > 50_000) kindCache.clear();
    kind = classify(word);
    kindCache.set(word, kind);
  }
  return kind;
}

function classify(word: string): Kind {
  if (word.length === 2 && word[1] === '.') return 'I';
  const w = word.toLowerCase();
  if (FIRST_NAMES.has(w)) return 'F';
  if (PATRONYMIC.test(w)) return 'P';
  if (w.length > 3 && SURNAME.test(w) && !NOT_SURNAME.has(w)) return 'S';
  return NOT_SURNAME.has(w) ? 'X' : 'W';
}

/** Two neighbouring tokens belong to one name when only spaces (or nothing, between initials) separate them. */
const adjacent = (text: string, a: Token, b: Token): boolean => {
  const gap = text.slice(a.end, b.start);
  return (
    gap.length <= 2 && /^ *$/.test(gap) && (gap.length > 0 || (a.kind === 'I' && b.kind === 'I') || a.kind === 'I')
  );
};

/** How many tokens starting here form a name (0 when none), from the kinds of the next tokens. */
function nameLength(k: Kind[]): number {
  const seq = k.slice(0, 3).join('');
  // three words with a patronymic; an unknown capitalised word (W) only as an unlisted first name or a short surname
  if (/^(?:FPS|SFP|FPW|WPS|SWP|FSP|SPF|FPF|FFP)$/.test(seq)) return 3;
  // surname + two initials, two initials + surname
  // ("Передайте Ю. А. Калининой": the initials belong to the surname after them)
  if (/^[SFW]II$/.test(seq) && !/^[SW]$/.test(k[3] ?? '')) return 3;
  if (/^II[SW]$/.test(seq)) return 3;
  const pair = seq.slice(0, 2);
  if (pair === 'SI' && k[2] === 'S') return 0;
  // surname + one initial, one initial + surname; first name + patronymic or surname; surname + first name
  if (pair === 'SI' || pair === 'IS' || pair === 'FP' || pair === 'FS' || pair === 'SF') return 2;
  return 0;
}

export function russianNames(text: string): PiiMatch[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) tokens.push({ start: m.index, end: m.index + m[0].length, kind: kindOf(m[0]) });
  const out: PiiMatch[] = [];
  for (let i = 0; i < tokens.length;) {
    const kinds: Kind[] = [tokens[i].kind];
    for (let j = i + 1; j < Math.min(tokens.length, i + 4) && adjacent(text, tokens[j - 1], tokens[j]); j++)
      kinds.push(tokens[j].kind);
    const n = nameLength(kinds);
    if (n) {
      out.push(match('person', text, tokens[i].start, tokens[i + n - 1].end));
      i += n;
    } else i++;
  }
  return out;
}
