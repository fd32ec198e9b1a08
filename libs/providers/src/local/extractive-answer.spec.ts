import {
  answerExtractively,
  contentStems,
  MAX_PASSAGES,
  NO_MATCH_MESSAGE,
  splitPassages,
  type PassageTokenizer,
} from './extractive-answer';
import { LexicalEmbedder } from './lexical-embedder';
import { TokenCounter } from '../tokenizer/token-counter';

describe('answerExtractively', () => {
  const embedder = new LexicalEmbedder();
  const tokenizer = new TokenCounter();

  const SYSTEM =
    'You are the support bot of Acme Logistics. Our warehouse is in Kazan. ' +
    'Delivery to Moscow takes three days. Delivery to Novosibirsk takes seven days.\n' +
    'Refunds are processed within 14 days of the request. The office is closed on Sundays.';

  it('quotes the passage that matches the question', () => {
    const out = answerExtractively(
      { system: SYSTEM, messages: [], prompt: 'How long do refunds take?' },
      embedder,
      tokenizer,
    );
    expect(out.text).toContain('Refunds are processed within 14 days of the request.');
    expect(out.text).not.toContain('Kazan');
    expect(out.truncated).toBe(false);
    expect(out.passages).toBeGreaterThanOrEqual(1);
  });

  it('returns several matching passages in their original order', () => {
    const out = answerExtractively(
      { system: SYSTEM, messages: [], prompt: 'delivery takes how many days to Novosibirsk and Moscow' },
      embedder,
      tokenizer,
    );
    const lines = out.text.split('\n');
    expect(lines).toContain('Delivery to Moscow takes three days.');
    expect(lines).toContain('Delivery to Novosibirsk takes seven days.');
    expect(lines.indexOf('Delivery to Moscow takes three days.')).toBeLessThan(
      lines.indexOf('Delivery to Novosibirsk takes seven days.'),
    );
    expect(lines.length).toBeLessThanOrEqual(MAX_PASSAGES);
  });

  it('uses earlier messages as context and works in Russian', () => {
    const out = answerExtractively(
      {
        messages: [
          {
            role: 'user',
            content: 'Вот договор. Срок поставки товара составляет 10 рабочих дней. Оплата производится в рублях.',
          },
          { role: 'assistant', content: 'Понял, договор получен.' },
        ],
        prompt: 'Какой срок поставки?',
      },
      embedder,
      tokenizer,
    );
    expect(out.text).toContain('Срок поставки товара составляет 10 рабочих дней.');
    expect(out.text).not.toContain('Оплата');
  });

  it('returns the fixed honest message when nothing matches', () => {
    const out = answerExtractively(
      { system: 'Alpha beta gamma.', messages: [], prompt: 'Погода завтра?' },
      embedder,
      tokenizer,
    );
    expect(out).toEqual({ text: NO_MATCH_MESSAGE, truncated: false, passages: 0 });
    expect(answerExtractively({ messages: [], prompt: 'anything?' }, embedder, tokenizer).text).toBe(NO_MATCH_MESSAGE);
    expect(answerExtractively({ system: 'Some context.', messages: [], prompt: '' }, embedder, tokenizer).text).toBe(
      NO_MATCH_MESSAGE,
    );
  });

  it('does not count shared function words as a match', () => {
    const out = answerExtractively(
      {
        system: 'The office is closed on Sundays. It is in Kazan.',
        messages: [],
        prompt: 'What is the capital of France?',
      },
      embedder,
      tokenizer,
    );
    expect(out.text).toBe(NO_MATCH_MESSAGE);
  });

  it('hash-collision noise never produces an answer from unrelated context', () => {
    // 200 unrelated sentences: with a plain "cosine > 0" rule some would collide into a positive score.
    const context: string[] = [];
    for (let i = 0; i < 200; i++) context.push(`Sentence number ${i} talks about zebra${i} and quokka${i * 7}.`);
    const out = answerExtractively(
      { system: context.join(' '), messages: [], prompt: 'Какая погода в Казани?' },
      embedder,
      tokenizer,
    );
    expect(out.text).toBe(NO_MATCH_MESSAGE);
  });

  it('matches inflected Russian forms through stems', () => {
    const out = answerExtractively(
      {
        system: 'Оплата счета производится в течение 5 дней. Офис работает с 9 до 18.',
        messages: [],
        prompt: 'Когда нужно оплатить счёт?',
      },
      embedder,
      tokenizer,
    );
    expect(out.text).toBe('Оплата счета производится в течение 5 дней.');
  });

  it('does not answer with the question itself when it is echoed in messages', () => {
    const out = answerExtractively(
      {
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
        prompt: 'What is the capital of France?',
      },
      embedder,
      tokenizer,
    );
    expect(out.text).toBe(NO_MATCH_MESSAGE);
  });

  it('is deterministic', () => {
    const input = {
      system: SYSTEM,
      messages: [{ role: 'user', content: 'Delivery questions again.' }],
      prompt: 'delivery days',
    };
    expect(answerExtractively(input, embedder, tokenizer)).toEqual(
      answerExtractively(input, new LexicalEmbedder(), new TokenCounter()),
    );
  });

  it('stays within maxTokens, dropping lower-ranked passages first', () => {
    const prompt = 'delivery takes how many days to Novosibirsk and Moscow';
    const full = answerExtractively({ system: SYSTEM, messages: [], prompt }, embedder, tokenizer);
    const budget = tokenizer.count('Delivery to Novosibirsk takes seven days.') + 1;
    const small = answerExtractively({ system: SYSTEM, messages: [], prompt, maxTokens: budget }, embedder, tokenizer);
    expect(tokenizer.count(small.text)).toBeLessThanOrEqual(budget);
    expect(small.passages).toBe(1);
    expect(full.passages).toBeGreaterThan(1);
    expect(full.text).toContain(small.text);
  });

  it('truncates the best passage when even it does not fit', () => {
    const out = answerExtractively(
      { system: SYSTEM, messages: [], prompt: 'refunds processed request', maxTokens: 3 },
      embedder,
      tokenizer,
    );
    expect(out.truncated).toBe(true);
    expect(tokenizer.count(out.text)).toBeLessThanOrEqual(3);
    expect('Refunds are processed within 14 days of the request.'.startsWith(out.text)).toBe(true);
  });

  it('a zero budget gives an empty, truncated answer; the no-match message is also cut to the budget', () => {
    expect(
      answerExtractively({ system: SYSTEM, messages: [], prompt: 'refunds', maxTokens: 0 }, embedder, tokenizer),
    ).toEqual({
      text: '',
      truncated: true,
      passages: 0,
    });
    const out = answerExtractively({ messages: [], prompt: 'x', maxTokens: 2 }, embedder, tokenizer);
    expect(out.truncated).toBe(true);
    expect(NO_MATCH_MESSAGE.startsWith(out.text)).toBe(true);
  });

  it('accepts any tokenizer with count/truncate (structural contract)', () => {
    const charTokenizer: PassageTokenizer = { count: (t) => t.length, truncate: (t, n) => t.slice(0, n) };
    const out = answerExtractively(
      { system: SYSTEM, messages: [], prompt: 'refunds', maxTokens: 60 },
      embedder,
      charTokenizer,
    );
    expect(out.text.length).toBeLessThanOrEqual(60);
    expect(out.text).toContain('Refunds');
  });
});

describe('contentStems', () => {
  it('drops stop words, normalises and cuts words to 4 characters', () => {
    expect([...contentStems('What is the Refund policy for ЁЛКИ in 2024?')]).toEqual(['refu', 'poli', 'елки', '2024']);
    expect([...contentStems('Какой срок поставки?')]).toEqual(['срок', 'пост']);
    expect(contentStems('the and и в').size).toBe(0);
  });
});

describe('splitPassages', () => {
  it('splits at sentence ends and line breaks, trimming and dropping empties', () => {
    expect(splitPassages('One. Two! Three? «Четыре.» Пять…  Six\n\nSeven\r\nEight (nine.) Ten')).toEqual([
      'One.',
      'Two!',
      'Three?',
      '«Четыре.»',
      'Пять…',
      'Six',
      'Seven',
      'Eight (nine.)',
      'Ten',
    ]);
  });

  it('does not split decimals or words without following whitespace', () => {
    expect(splitPassages('Version 3.14 is out.Really')).toEqual(['Version 3.14 is out.Really']);
  });
});
