/**
 * Search terms of a text (pure, deterministic): the analysis shared by the offline lexical
 * embedders and the keyword leg of hybrid search, so both legs and both databases see the same
 * words.
 *
 *   1. Normalise: Unicode NFKC, lower case, "ё" → "е".
 *   2. Words: maximal runs of letters, digits and combining marks (`[\p{L}\p{N}\p{M}]+`).
 *   3. Language per word: a word with a Cyrillic letter goes to the Russian Snowball stemmer, a word
 *      with a Latin letter to the English (Porter 2) one; other words (numbers, other scripts) stay
 *      as they are.
 *   4. Stop words: a short committed list per language (function words: articles, pronouns,
 *      prepositions, auxiliaries). They carry no topic, so the keyword leg leaves them out and the
 *      embedders give them no features (unless a text has nothing else).
 */
// snowball-stemmers ships no type declarations
// eslint-disable-next-line @typescript-eslint/no-require-imports
const snowball = require('snowball-stemmers') as { newStemmer(language: string): { stem(word: string): string } };

const english = snowball.newStemmer('english');
const russian = snowball.newStemmer('russian');

/** Function words that carry no topic (compared after normalisation, before stemming). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  // English
  (
    'a an the and or but nor if then else so of to in on at by for from with without into onto about ' +
    'over under as than that this these those there here what which who whom whose when where why how ' +
    'is are was were be been being am do does did doing done have has had having will would shall should ' +
    'can could may might must i me my mine we us our ours you your yours he him his she her hers it its ' +
    'they them their theirs not no yes all any each both either neither some such only own same too very ' +
    'just also up down out off again once one s t ' +
    // Russian
    'и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было ' +
    'вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас ' +
    'нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем ' +
    'была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой ' +
    'совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при ' +
    'наконец два об другой хоть после над больше тот через эти нас про всего них какая много разве три ' +
    'эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им более всегда конечно ' +
    'всю между это как сколько'
  ).split(' '),
);

const WORD_PATTERN = /[\p{L}\p{N}\p{M}]+/gu;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /\p{Script=Latin}/u;

/** The text as the analysis sees it: NFKC, lower case, ё → е. */
export function normalizeForLexicalMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ё/g, 'е');
}

/**
 * Stems are memoised (a Snowball stem costs microseconds; real text repeats its words), stop words
 * as null, so a word costs one lookup. The memo is bounded: it starts over when full, which changes
 * nothing but speed.
 */
const MEMO_LIMIT = 100_000;
let memo = new Map<string, string | null>();

/** The stem of one normalised word, or null for a stop word. */
export function stemOrStop(word: string): string | null {
  let stem = memo.get(word);
  if (stem !== undefined) return stem;
  stem = STOP_WORDS.has(word) ? null : computeStem(word);
  if (memo.size >= MEMO_LIMIT) memo = new Map();
  memo.set(word, stem);
  return stem;
}

/** The stem of one normalised word (Russian for Cyrillic, English for Latin, else the word). */
export function stemWord(word: string): string {
  return stemOrStop(word) ?? computeStem(word);
}

function computeStem(word: string): string {
  const stem = CYRILLIC.test(word) ? russian.stem(word) : LATIN.test(word) ? english.stem(word) : word;
  return stem || word;
}

/** One word of a text: its normalised surface form, its stem, and whether it is a stop word. */
export interface TextWord {
  surface: string;
  stem: string;
  stop: boolean;
}

/** Every word of `text` in order. */
export function analyzeWords(text: string): TextWord[] {
  const out: TextWord[] = [];
  for (const match of normalizeForLexicalMatch(text).matchAll(WORD_PATTERN)) {
    const surface = match[0];
    out.push({ surface, stem: stemWord(surface), stop: STOP_WORDS.has(surface) });
  }
  return out;
}

/**
 * What the keyword index stores for a text: the stems of its words (stop words left out), in
 * order, separated by single spaces. Both databases index this string with a plain tokenizer, so
 * they match the same stems.
 */
export function indexTerms(text: string): string {
  return analyzeWords(text)
    .filter((w) => !w.stop)
    .map((w) => w.stem)
    .join(' ');
}

/**
 * The keyword leg's query terms: distinct stems of the query's words (at least 2 characters, stop
 * words left out), at most 32, in order of first appearance.
 */
export function keywordTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const w of analyzeWords(query)) {
    if (w.stop || w.surface.length < 2) continue;
    terms.add(w.stem);
    if (terms.size === 32) break;
  }
  return [...terms];
}
