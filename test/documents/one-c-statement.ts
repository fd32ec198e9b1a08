import { encode } from 'iconv-lite';

/** Published requisites (ООО «Яндекс» with its Sberbank account) used as the seller. */
export const SELLER = {
  legal_name: 'ООО «Шлюз Моделей»',
  inn: '7736207543',
  kpp: '770401001',
  ogrn: '1027700229193',
  address: '119021, г. Москва, ул. Льва Толстого, д. 16',
  bank_name: 'ПАО Сбербанк, г. Москва',
  bik: '044525225',
  account: '40702810438000034726',
  corr_account: '30101810400000000225',
  vat_rate: '22',
  signatory: 'Иванов И. И.',
  accountant: 'Петрова А. С.',
};

/** Buyers: ПАО Сбербанк and АО «Тинькофф Банк» (published ИНН/КПП). */
export const BUYER_A = {
  legal_name: 'ПАО Сбербанк',
  inn: '7707083893',
  kpp: '773601001',
  address: '117312, г. Москва, ул. Вавилова, д. 19',
};
export const BUYER_B = {
  legal_name: 'АО «Тинькофф Банк»',
  inn: '7710140679',
  kpp: '771301001',
  address: '127287, г. Москва, ул. Хуторская 2-я, д. 38А, стр. 26',
};

export interface PaymentOrder {
  number: string;
  /** DD.MM.YYYY */
  date: string;
  amount: string;
  payerInn: string;
  payerName: string;
  purpose: string;
  /** default: the seller's account */
  recipientAccount?: string;
}

/** A statement in the 1C exchange format, encoded in Windows-1251 with CRLF lines as banks send it. */
export function oneCStatement(orders: PaymentOrder[]): Buffer {
  const lines = [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    'Кодировка=Windows',
    'Отправитель=СББОЛ',
    'Получатель=',
    'ДатаСоздания=28.11.2026',
    'ВремяСоздания=10:15:00',
    'ДатаНачала=01.11.2026',
    'ДатаКонца=28.11.2026',
    `РасчСчет=${SELLER.account}`,
    'Документ=Платежное поручение',
    'СекцияРасчСчет',
    'ДатаНачала=01.11.2026',
    'ДатаКонца=28.11.2026',
    `РасчСчет=${SELLER.account}`,
    'НачальныйОстаток=0.00',
    'КонецРасчСчет',
  ];
  for (const o of orders)
    lines.push(
      'СекцияДокумент=Платежное поручение',
      `Номер=${o.number}`,
      `Дата=${o.date}`,
      `Сумма=${o.amount}`,
      `ПлательщикСчет=40702810900000000001`,
      `Плательщик=ИНН ${o.payerInn} ${o.payerName}`,
      `ПлательщикИНН=${o.payerInn}`,
      `Плательщик1=${o.payerName}`,
      `ПолучательСчет=${o.recipientAccount ?? SELLER.account}`,
      `ДатаПоступило=${o.date}`,
      `Получатель=ИНН ${SELLER.inn} ${SELLER.legal_name}`,
      `ПолучательИНН=${SELLER.inn}`,
      `Получатель1=${SELLER.legal_name}`,
      'ВидОплаты=01',
      'Очередность=5',
      `НазначениеПлатежа=${o.purpose}`,
      'КонецДокумента',
    );
  lines.push('КонецФайла', '');
  return encode(lines.join('\r\n'), 'win1251');
}
