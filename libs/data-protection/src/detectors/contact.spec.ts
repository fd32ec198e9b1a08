import { detectPii, PiiEntityType } from './index';

const found = (text: string, type: PiiEntityType) => detectPii(text, { entities: [type] }).map((m) => m.value);

describe('e-mail', () => {
  it('finds addresses, including internationalised domains', () => {
    expect(found('пишите на ivan.petrov+shop@mail.ru.', 'email')).toEqual(['ivan.petrov+shop@mail.ru']);
    expect(found('<a.b@corp.example.org>, buh@пример.рф', 'email')).toEqual(['a.b@corp.example.org', 'buh@пример.рф']);
  });

  it('does not take handles or bare @ for addresses', () => {
    expect(found('ping @support or user@localhost', 'email')).toEqual([]);
  });
});

describe('phones', () => {
  it.each([
    '+7 (916) 123-45-67',
    '+79161234567',
    '8 916 123 45 67',
    '8(916)1234567',
    '8-916-123-45-67',
    '+7 916 123-45-67',
    '+7-916-123-4567',
    '8 (800) 555-35-35',
    '89161234567',
    '+44 20 7946 0958',
    '+1 (415) 555-2671',
    '+375 29 123-45-67',
    '+8613812345678',
  ])('finds %s', (phone) => {
    expect(found(`тел. ${phone}, звоните`, 'phone')).toEqual([phone]);
  });

  it('does not flag order numbers, product codes, dates, prices or short numbers', () => {
    expect(found('Заказ № 89161234567 от 12.03.2024', 'phone')).toEqual([]);
    expect(found('артикул 8-916-123-45-67', 'phone')).toEqual([]);
    expect(found('код товара 89161234567', 'phone')).toEqual([]);
    expect(found('сумма 12 500 руб., 1 234 567,89 ₽', 'phone')).toEqual([]);
    expect(found('SKU 555-0199-22, part no. 8-800-555', 'phone')).toEqual([]);
    expect(found('number 81234567890', 'phone')).toEqual([]); // the code after 8 cannot start with 1
    expect(found('+12345', 'phone')).toEqual([]);
  });

  it('takes a leading 7 without the plus only after a phone keyword', () => {
    expect(found('тел. 79161234567', 'phone')).toEqual(['79161234567']);
    expect(found('id 79161234567', 'phone')).toEqual([]);
  });
});

describe('IP addresses', () => {
  it('finds IPv4 and IPv6', () => {
    expect(found('server 192.168.1.10, 10.0.0.1.', 'ip')).toEqual(['192.168.1.10', '10.0.0.1']);
    expect(found('login from 2001:db8:85a3::8a2e:370:7334 and fe80::1:2', 'ip')).toEqual([
      '2001:db8:85a3::8a2e:370:7334',
      'fe80::1:2',
    ]);
  });

  it('does not flag version numbers, times, MAC addresses, out-of-range octets or C++ scopes', () => {
    expect(found('version 1.2.3.4, версия приложения 7.14.4.221, v2.0.0.1', 'ip')).toEqual([]);
    expect(found('at 12:30:45 the MAC 00:1A:2B:3C:4D:5E', 'ip')).toEqual([]);
    expect(found('999.1.1.1 and 1.2.3.4.5', 'ip')).toEqual([]);
    expect(found('std::vector and a::b', 'ip')).toEqual([]);
  });
});

describe('context words', () => {
  it('are whole words: "paid" does not read as "id", "border" not as "order"', () => {
    expect(found('paid 89161234567 yesterday', 'phone')).toEqual(['89161234567']);
    expect(found('border 8 916 123 45 67', 'phone')).toEqual(['8 916 123 45 67']);
    expect(found('id 89161234567', 'phone')).toEqual([]);
  });
});
