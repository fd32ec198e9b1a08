import { OPEN_POLICY } from './policy';
import { detectOptionsOf, PiiVault } from './pii-vault';
import { StreamRestorer } from './stream-restorer';

function vaultWith(text: string): { vault: PiiVault; masked: string } {
  const vault = new PiiVault(detectOptionsOf({ ...OPEN_POLICY, pii: 'mask' }));
  return { vault, masked: vault.mask(text) };
}

/** Every way of cutting `text` into two or three pieces, restored piece by piece. */
function allSplits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
    for (let j = i; j <= text.length; j++) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return out;
}

describe('StreamRestorer', () => {
  const { vault, masked } = vaultWith('Write to anna@example.com or call +7 912 345-67-89.');

  it('the masked text carries placeholders, not the values', () => {
    expect(masked).toBe('Write to [EMAIL_1] or call [PHONE_1].');
  });

  it('restores the answer whatever the chunk boundaries', () => {
    const answer = 'Sure: [EMAIL_1], then [PHONE_1] ([EMAIL_1]). [NOT_1] stays [';
    const expected = 'Sure: anna@example.com, then +7 912 345-67-89 (anna@example.com). [NOT_1] stays [';
    for (const pieces of allSplits(answer)) {
      const r = new StreamRestorer(vault);
      const out = pieces.map((p) => r.push(p)).join('') + r.flush();
      expect(out).toBe(expected);
    }
  });

  it('holds back only a tail that may become a placeholder, never longer than one', () => {
    const r = new StreamRestorer(vault);
    expect(r.push('Hello [EM')).toBe('Hello ');
    expect(r.holding).toBe(true);
    expect(r.push('AIL_1] ok')).toBe('anna@example.com ok');
    expect(r.push('a [b')).toBe('a [b');
    expect(r.push('[PHONE_')).toBe('');
    expect(r.push('2')).toBe('[PHONE_2');
    expect(r.flush()).toBe('');
  });

  it('gives what it holds when the text ends', () => {
    const r = new StreamRestorer(vault);
    expect(r.push('end [PHO')).toBe('end ');
    expect(r.flush()).toBe('[PHO');
  });
});

describe('PiiVault', () => {
  it('gives the same value the same placeholder across texts and counts occurrences by type', () => {
    const vault = new PiiVault(detectOptionsOf({ ...OPEN_POLICY, pii: 'mask' }));
    expect(vault.mask('a@b.io and c@d.io')).toBe('[EMAIL_1] and [EMAIL_2]');
    expect(vault.mask('again c@d.io, паспорт 4510 123456')).toBe('again [EMAIL_2], паспорт [PASSPORT_1]');
    expect(vault.counts).toEqual({ email: 3, passport: 1 });
    expect(vault.restore('[EMAIL_2]/[PASSPORT_1]/[EMAIL_9]')).toBe('c@d.io/4510 123456/[EMAIL_9]');
  });

  it('masks custom patterns under their own name and leaves the allow list alone', () => {
    const vault = new PiiVault(
      detectOptionsOf({
        ...OPEN_POLICY,
        pii: 'mask',
        custom_patterns: [{ name: 'order id', regex: 'ORD-\\d{6}' }],
        allow_list: ['support@example.com'],
      }),
    );
    expect(vault.mask('ORD-123456 from x@y.ru, cc support@example.com')).toBe(
      '[ORDER_ID_1] from [EMAIL_1], cc support@example.com',
    );
  });
});
