import { bankAccountValid, innValid, luhnValid, ogrnValid, snilsValid } from './checksums';

describe('check digits', () => {
  it('Luhn accepts valid card numbers and rejects a changed digit', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('2200123456789019')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('2200123456789011')).toBe(false);
  });

  it('INN: 10 digits (one check digit) and 12 digits (two)', () => {
    expect(innValid('7707083893')).toBe(true);
    expect(innValid('7707083894')).toBe(false);
    expect(innValid('500100732259')).toBe(true);
    expect(innValid('500100732258')).toBe(false); // second check digit wrong
    expect(innValid('500100732269')).toBe(false); // first check digit wrong
    expect(innValid('77070838930')).toBe(false); // 11 digits
  });

  it('SNILS: check number mod 101, 100 and 101 giving 00, old numbers without check rejected', () => {
    expect(snilsValid('11223344595')).toBe(true);
    expect(snilsValid('11223344596')).toBe(false);
    expect(snilsValid('00100199800')).toBe(false);
    // a sum above 101: 987-654-321 → 9*9+8*8+…+1*1 = 285 → 285 mod 101 = 83
    expect(snilsValid('98765432183')).toBe(true);
    expect(snilsValid('98765432184')).toBe(false);
  });

  it('OGRN (13 digits, mod 11) and OGRNIP (15 digits, mod 13)', () => {
    expect(ogrnValid('1027700132195')).toBe(true);
    expect(ogrnValid('1027700132196')).toBe(false);
    expect(ogrnValid('304500116000157')).toBe(true);
    expect(ogrnValid('304500116000158')).toBe(false);
  });

  it('20-digit accounts are checked with the BIK they belong to', () => {
    expect(bankAccountValid('40702810938000060423', '044525225')).toBe(true);
    expect(bankAccountValid('40702810938000060473', '044525225')).toBe(false);
    expect(bankAccountValid('40702810938000060423', '044525226')).toBe(false);
  });
});
