import { accountProblem, bikProblem, corrAccountProblem, innProblem, kppProblem, ogrnProblem } from './validators';

// Published requisites: ПАО Сбербанк (ИНН 7707083893, КПП 773601001, ОГРН 1027700132195, БИК 044525225,
// к/с 30101810400000000225), ООО «Яндекс» (ИНН 7736207543, ОГРН 1027700229193, р/с 40702810438000034726
// in Sberbank), АО «Тинькофф Банк» (БИК 044525974, к/с 30101810145250000974), the ФНС's example of a
// personal ИНН (500100732259) and of an ОГРНИП (304500116000157).
describe('requisite validators', () => {
  it.each(['7707083893', '7736207543', '7830002293', '500100732259'])('ИНН %s is valid', (inn) => {
    expect(innProblem(inn)).toBeNull();
  });
  it.each([
    ['7707083894', 'check digit does not match'],
    ['500100732258', 'check digits do not match'],
    ['500100732269', 'check digits do not match'],
    ['770708389', 'must be 10 or 12 digits'],
    ['77070838931', 'must be 10 or 12 digits'],
    ['77070838ab', 'must be 10 or 12 digits'],
  ])('ИНН %s is refused: %s', (inn, why) => {
    expect(innProblem(inn)).toBe(why);
  });

  it('КПП: 9 characters, the reason part may be letters', () => {
    expect(kppProblem('773601001')).toBeNull();
    expect(kppProblem('7736AB001')).toBeNull();
    expect(kppProblem('77360100')).not.toBeNull();
    expect(kppProblem('7736ab001')).not.toBeNull();
    expect(kppProblem('77360100A')).not.toBeNull();
  });

  it.each(['1027700132195', '1027700229193', '1037739010891', '304500116000157'])('ОГРН(ИП) %s is valid', (o) => {
    expect(ogrnProblem(o)).toBeNull();
  });
  it.each(['1027700132196', '1027700229190', '304500116000158', '102770013219', '30450011600015x'])(
    'ОГРН(ИП) %s is refused',
    (o) => {
      expect(ogrnProblem(o)).not.toBeNull();
    },
  );

  it('БИК: 9 digits', () => {
    expect(bikProblem('044525225')).toBeNull();
    expect(bikProblem('04452522')).not.toBeNull();
  });

  it('a settlement account is keyed to its bank', () => {
    expect(accountProblem('40702810438000034726', '044525225')).toBeNull();
    // one digit changed, or the same account at another bank
    expect(accountProblem('40702810438000034727', '044525225')).toBe('control key does not match the BIK');
    expect(accountProblem('40702810438000034726', '044525974')).toBe('control key does not match the BIK');
    expect(accountProblem('4070281043800003472', '044525225')).toBe('must be 20 digits');
  });

  it('a correspondent account is keyed to the BIK', () => {
    expect(corrAccountProblem('30101810400000000225', '044525225')).toBeNull();
    expect(corrAccountProblem('30101810145250000974', '044525974')).toBeNull();
    expect(corrAccountProblem('30101810400000000226', '044525225')).not.toBeNull();
    // Уральский банк ПАО Сбербанк: БИК 046577674, к/с 30101810500000000674
    expect(corrAccountProblem('30101810500000000674', '046577674')).toBeNull();
    expect(corrAccountProblem('30101810145250000974', '046577674')).not.toBeNull();
    expect(corrAccountProblem('40702810438000034726', '044525225')).toBe('must start with 301');
  });
});
