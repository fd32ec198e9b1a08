import { encode } from 'iconv-lite';
import { invoiceNumbersIn, parseOneCStatement, StatementFormatError } from './one-c-statement';

const FILE = [
  '1CClientBankExchange',
  'ВерсияФормата=1.03',
  'Кодировка=Windows',
  'ДатаНачала=01.11.2026',
  'ДатаКонца=30.11.2026',
  'РасчСчет=40702810438000034726',
  'СекцияРасчСчет',
  'ДатаНачала=01.11.2026',
  'РасчСчет=40702810438000034726',
  'КонецРасчСчет',
  'СекцияДокумент=Платежное поручение',
  'Номер=512',
  'Дата=20.11.2026',
  'Сумма=12200.5',
  'ПлательщикИНН=7707083893',
  'Плательщик=ИНН 7707083893 ПАО Сбербанк',
  'Плательщик1=ПАО Сбербанк',
  'ПолучательСчет=40702810438000034726',
  'ПолучательИНН=7736207543',
  'НазначениеПлатежа=Оплата по счёту inv-2026-000001 и INV-2026-000002, в т.ч. НДС',
  'КонецДокумента',
  'СекцияДокумент=Банковский ордер',
  'Номер=7',
  'Дата=21.11.2026',
  'Сумма=15',
  'КонецДокумента',
  'КонецФайла',
].join('\r\n');

describe('1C bank statement', () => {
  it('reads a Windows-1251 file: header, account section skipped, documents with kopecks', () => {
    const s = parseOneCStatement(encode(FILE, 'win1251'));
    expect(s).toMatchObject({ account: '40702810438000034726', dateFrom: '2026-11-01', dateTo: '2026-11-30' });
    expect(s.documents).toHaveLength(2);
    expect(s.documents[0]).toEqual({
      kind: 'Платежное поручение',
      number: '512',
      date: '2026-11-20',
      amountKopecks: 1_220_050,
      payerInn: '7707083893',
      payerName: 'ПАО Сбербанк',
      payerAccount: '',
      recipientInn: '7736207543',
      recipientAccount: '40702810438000034726',
      purpose: 'Оплата по счёту inv-2026-000001 и INV-2026-000002, в т.ч. НДС',
    });
    expect(s.documents[1]).toMatchObject({ kind: 'Банковский ордер', amountKopecks: 1500 });
  });

  it('reads a DOS (CP866) file when the header says so', () => {
    const s = parseOneCStatement(encode(FILE.replace('Кодировка=Windows', 'Кодировка=DOS'), 'cp866'));
    expect(s.documents[0].payerName).toBe('ПАО Сбербанк');
  });

  it('reads a UTF-8 file', () => {
    expect(parseOneCStatement(Buffer.from(FILE, 'utf8')).documents[0].payerName).toBe('ПАО Сбербанк');
  });

  it('refuses what is not a complete statement', () => {
    expect(() => parseOneCStatement(Buffer.from('hello'))).toThrow(StatementFormatError);
    expect(() => parseOneCStatement(encode(FILE.replace('\r\nКонецФайла', ''), 'win1251'))).toThrow(/КонецФайла/);
    expect(() => parseOneCStatement(encode(FILE.replace('Сумма=12200.5', 'Сумма=12,200'), 'win1251'))).toThrow(/Сумма/);
  });

  it('finds invoice numbers in a purpose, any case, once each', () => {
    expect(invoiceNumbersIn('Оплата по счёту inv-2026-000001 и INV-2026-000002; INV-2026-000001')).toEqual([
      'INV-2026-000001',
      'INV-2026-000002',
    ]);
    expect(invoiceNumbersIn('Оплата по договору 15')).toEqual([]);
  });
});
