import { detectPii, PiiEntityType } from './index';

const found = (text: string, type: PiiEntityType) => detectPii(text, { entities: [type] }).map((m) => m.value);

describe('bank cards', () => {
  it.each([
    ['4111 1111 1111 1111'],
    ['4111-1111-1111-1111'],
    ['4111111111111111'],
    ['2200 1234 5678 9019'],
    ['3782 822463 10005'],
  ])('finds %s', (card) => {
    expect(found(`оплатил картой ${card}, спасибо`, 'card')).toEqual([card]);
  });

  it('does not flag a number that fails Luhn, an unknown issuer range, or a card-length order number', () => {
    expect(found('карта 4111 1111 1111 1112', 'card')).toEqual([]);
    expect(found('number 9111111111111119', 'card')).toEqual([]); // Luhn-valid, but no issuer starts with 9
    expect(found('Order #4111111111111111 shipped', 'card')).toEqual([]);
    expect(found('Заказ № 4111111111111111', 'card')).toEqual([]);
  });

  it('does not take a card out of a longer number or one glued to letters', () => {
    expect(found('ref 41111111111111110000', 'card')).toEqual([]);
    expect(found('id A4111111111111111', 'card')).toEqual([]);
  });
});

describe('INN', () => {
  it('finds a 10-digit INN after its keyword only', () => {
    expect(found('ИНН 7707083893', 'inn')).toEqual(['7707083893']);
    expect(found('INN: 7707083893', 'inn')).toEqual(['7707083893']);
    expect(found('договор 7707083893', 'inn')).toEqual([]);
    // the keyword labels the number right after it, not a later one
    expect(found('ИНН 7707083893, договор № 7707083893', 'inn')).toEqual(['7707083893']);
  });

  it('finds a 12-digit INN by its two check digits, not with a wrong one', () => {
    expect(found('налоговый номер 500100732259', 'inn')).toEqual(['500100732259']);
    expect(found('ИНН 500100732258', 'inn')).toEqual([]);
  });

  it('finds INNs in a table column headed "ИНН"', () => {
    const csv = 'Контрагент;ИНН;Сумма\nВектор;7707083893;100\nРомашка;7707083893;200';
    expect(found(csv, 'inn')).toEqual(['7707083893', '7707083893']);
    expect(found('Контрагент;Договор;Сумма\nВектор;7707083893;100', 'inn')).toEqual([]);
  });
});

describe('SNILS', () => {
  it('finds the usual spellings; a bare number needs the keyword; a wrong check number is ignored', () => {
    expect(found('112-233-445 95', 'snils')).toEqual(['112-233-445 95']);
    expect(found('112-233-445-95', 'snils')).toEqual(['112-233-445-95']);
    expect(found('СНИЛС 11223344595', 'snils')).toEqual(['11223344595']);
    expect(found('номер 11223344595', 'snils')).toEqual([]);
    expect(found('112-233-445 96', 'snils')).toEqual([]);
  });
});

describe('passport', () => {
  it.each([
    ['паспорт 45 08 123456', '45 08 123456'],
    ['паспорт серия 4508 номер 123456', '4508 номер 123456'],
    ['серия 45 08 № 123456', '45 08 № 123456'],
    ['серия и номер паспорта: 4508123456', '4508123456'],
    ['passport 4508 123456', '4508 123456'],
  ])('finds the series and number in "%s"', (text, value) => {
    expect(found(text, 'passport')).toEqual([value]);
  });

  it('needs a context word', () => {
    expect(found('накладная 4508 123456', 'passport')).toEqual([]);
    expect(found('серийный номер 4508123456', 'passport')).toEqual([]);
  });
});

describe('OGRN / OGRNIP', () => {
  it('finds them after the keyword with a valid check digit', () => {
    expect(found('ОГРН 1027700132195', 'ogrn')).toEqual(['1027700132195']);
    expect(found('ОГРНИП 304500116000157', 'ogrn')).toEqual(['304500116000157']);
    expect(found('ОГРН 1027700132196', 'ogrn')).toEqual([]);
    expect(found('штрихкод 1027700132195', 'ogrn')).toEqual([]);
  });
});

describe('bank accounts', () => {
  it('finds a 20-digit account whose control key matches a BIK in the text', () => {
    expect(found('р/с 40702810938000060423, БИК 044525225', 'bank_account')).toEqual(['40702810938000060423']);
    expect(found('БИК 044525225, счёт 40702 810 9 3800 0060423', 'bank_account')).toEqual(['40702 810 9 3800 0060423']);
  });

  it('ignores accounts without a BIK, with a wrong control key, and correspondent accounts', () => {
    expect(found('счёт 40702810938000060423', 'bank_account')).toEqual([]);
    expect(found('р/с 40702810938000060473, БИК 044525225', 'bank_account')).toEqual([]);
    expect(found('к/с 30101810400000000225, БИК 044525225', 'bank_account')).toEqual([]);
  });
});
