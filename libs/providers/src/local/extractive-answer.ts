/**
 * The offline `local` chat model: an extractive "answer" built only from text the caller supplied.
 *
 * It does not generate language. It splits the system prompt and the earlier messages into
 * passages (sentences, or lines without sentence punctuation) and keeps the passages that share at
 * least one content-word stem with the prompt (see {@link contentStems}). Those are ranked by
 * lexical cosine similarity to the prompt (LexicalEmbedder), and the answer is the best passage
 * plus up to two more that score at least half as well, in their original order, within the token
 * budget (greedy by score; an over-budget best passage is truncated). When no passage qualifies it
 * returns a fixed message instead of making something up. Same input → same output, always.
 *
 * Why a stem gate instead of "all cosine scores are 0": feature hashing makes unrelated texts
 * collide, so their cosine is almost never exactly 0 (at 256 dimensions half of unrelated sentence
 * pairs score > 0, 1% above 0.14, more than one genuinely shared word gives). The gate decides
 * "nothing matches" exactly; the larger dimension ({@link EXTRACTIVE_EMBEDDING_DIMENSIONS}) keeps
 * collision noise well below that signal for the ranking.
 */
import { cosineSimilarity, normalizeForLexicalMatch } from './lexical-embedder';

/** Minimal embedder contract (LexicalEmbedder satisfies it). */
export interface PassageEmbedder {
  embed(text: string, dimensions: number): Float32Array;
}

/** Minimal tokenizer contract (TokenCounter satisfies it). */
export interface PassageTokenizer {
  count(text: string): number;
  truncate(text: string, maxTokens: number): string;
}

export interface ExtractiveAnswerInput {
  /** System prompt; its sentences are candidate passages. */
  system?: string;
  /** Earlier turns (any role); their sentences are candidate passages. Should not include the prompt itself. */
  messages: ReadonlyArray<{ role: string; content: string }>;
  /** The question. */
  prompt: string;
  /** Token budget for the answer (default {@link DEFAULT_MAX_TOKENS}). */
  maxTokens?: number;
}

export interface ExtractiveAnswer {
  text: string;
  /** true when the budget cut the answer short (maps to finish_reason "length") */
  truncated: boolean;
  /** number of passages quoted (0 for the no-match message) */
  passages: number;
}

export const NO_MATCH_MESSAGE = 'No passage in the supplied context matches the question.';
/** Embedding size for ranking passages (noise of hash collisions ∝ 1/√dimensions). */
export const EXTRACTIVE_EMBEDDING_DIMENSIONS = 2048;
/** At most this many passages are quoted. */
export const MAX_PASSAGES = 3;
/** Passages after the best one are quoted only when they score at least this fraction of the best. */
export const RELATIVE_SCORE_CUTOFF = 0.5;
export const DEFAULT_MAX_TOKENS = 512;
/** Quoted passages are joined with this separator, in their original order. */
export const PASSAGE_SEPARATOR = '\n';

/**
 * Splits text into passages: at line breaks, and after sentence-ending punctuation (. ! ? …,
 * optionally followed by closing quotes/brackets) that is followed by whitespace. Trimmed, empty
 * pieces dropped.
 */
export function splitPassages(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n|\r/)) {
    for (const piece of line.split(/(?<=[.!?…]["'»”)\]]*)\s+/u)) {
      const passage = piece.trim();
      if (passage.length > 0) out.push(passage);
    }
  }
  return out;
}

/**
 * Function words ignored by the stem gate (English and Russian, after normalisation: lower case,
 * ё → е). They still count in the cosine ranking.
 */
const STOP_WORDS = new Set(
  (
    'a an the and or but of to in on at for with by from as is are was were be been being it its this that these those ' +
    'what which who whom whose how why when where do does did can could would should will shall may might must ' +
    'i you he she we they me him her us them my your his our their there here not no yes if then so than about ' +
    'any some all much many more most very just also please tell ' +
    'и в во на не что как с со а но по к ко у о об от до из за для же ли бы то это этот эта эти так там тут да нет ' +
    'он она оно они я ты мы вы его ее их мне меня мной тебя тебе нас нам вас вам кто где когда почему зачем ' +
    'какой какая какое какие каков сколько или если уже еще был была было были быть есть будет ну вот скажи скажите'
  ).split(' '),
);

/** Letters/digits runs, as in the embedder. */
const WORD_PATTERN = /[\p{L}\p{N}\p{M}]+/gu;
/** Words longer than this are compared by their first STEM_LENGTH characters (crude stemming). */
const STEM_LENGTH = 4;

/**
 * Stems of the content words of `text`: normalised words that are not stop words, cut to their
 * first 4 characters ("оплата"/"оплатить" → "опла", "refunds"/"refund" → "refu"); shorter words
 * and numbers stay whole.
 */
export function contentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const match of normalizeForLexicalMatch(text).matchAll(WORD_PATTERN)) {
    const word = match[0];
    if (STOP_WORDS.has(word)) continue;
    stems.add(word.length > STEM_LENGTH ? word.slice(0, STEM_LENGTH) : word);
  }
  return stems;
}

function sharesStem(stems: ReadonlySet<string>, text: string): boolean {
  for (const stem of contentStems(text)) {
    if (stems.has(stem)) return true;
  }
  return false;
}

/** Whitespace-collapsed, lexically normalised form used to drop duplicates and the echoed prompt. */
function identity(text: string): string {
  return normalizeForLexicalMatch(text).replace(/\s+/gu, ' ').trim();
}

export function answerExtractively(
  input: ExtractiveAnswerInput,
  embedder: PassageEmbedder,
  tokenizer: PassageTokenizer,
): ExtractiveAnswer {
  const budget = input.maxTokens === undefined ? DEFAULT_MAX_TOKENS : Math.floor(input.maxTokens);
  if (!(budget > 0)) return { text: '', truncated: true, passages: 0 };

  // Candidate passages in original order: system prompt first, then the messages.
  const sources: string[] = [];
  if (input.system !== undefined && input.system.length > 0) sources.push(input.system);
  for (const message of input.messages) {
    if (typeof message.content === 'string' && message.content.length > 0) sources.push(message.content);
  }
  const promptIdentity = identity(input.prompt);
  const seen = new Set<string>();
  const passages: string[] = [];
  for (const source of sources) {
    for (const passage of splitPassages(source)) {
      const key = identity(passage);
      // Duplicates keep their first occurrence; a passage that just repeats the question is no answer.
      if (key.length === 0 || key === promptIdentity || seen.has(key)) continue;
      seen.add(key);
      passages.push(passage);
    }
  }

  const promptStems = contentStems(input.prompt);
  const query = embedder.embed(input.prompt, EXTRACTIVE_EMBEDDING_DIMENSIONS);
  const scored: { index: number; score: number }[] = [];
  for (let i = 0; i < passages.length; i++) {
    if (!sharesStem(promptStems, passages[i])) continue;
    const score = cosineSimilarity(query, embedder.embed(passages[i], EXTRACTIVE_EMBEDDING_DIMENSIONS));
    if (score > 0) scored.push({ index: i, score });
  }
  if (scored.length === 0) return fit(NO_MATCH_MESSAGE, 0, budget, tokenizer);

  // Best first; equal scores keep the original order.
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  const best = scored[0];
  if (tokenizer.count(passages[best.index]) > budget) {
    // Even the best passage alone is over budget: quote its beginning.
    return { text: tokenizer.truncate(passages[best.index], budget), truncated: true, passages: 1 };
  }
  const chosen: number[] = [best.index];
  for (const candidate of scored.slice(1, MAX_PASSAGES)) {
    if (candidate.score < best.score * RELATIVE_SCORE_CUTOFF) break;
    const trial = [...chosen, candidate.index].sort((a, b) => a - b);
    if (tokenizer.count(join(passages, trial)) <= budget) chosen.push(candidate.index);
  }
  chosen.sort((a, b) => a - b);
  return { text: join(passages, chosen), truncated: false, passages: chosen.length };
}

function join(passages: readonly string[], indices: readonly number[]): string {
  return indices.map((i) => passages[i]).join(PASSAGE_SEPARATOR);
}

function fit(text: string, passages: number, budget: number, tokenizer: PassageTokenizer): ExtractiveAnswer {
  const cut = tokenizer.truncate(text, budget);
  return { text: cut, truncated: cut !== text, passages };
}
