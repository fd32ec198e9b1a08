import { detectPii } from './index';

const addresses = (text: string) => detectPii(text, { entities: ['address'] }).map((m) => m.value);

describe('addresses (optional entity)', () => {
  it('are off by default', () => {
    expect(detectPii('г. Москва, ул. Ленина, д. 5, кв. 12')).toEqual([]);
  });

  it.each([
    ['г. Москва, ул. Ленина, д. 5, кв. 12', 'ул. Ленина, д. 5, кв. 12'],
    ['адрес: пр-т Мира, 10к2', 'пр-т Мира, 10к2'],
    ['Тверская улица, дом 7', 'Тверская улица, дом 7'],
    ['ship to 221B Baker Street.', '221B Baker Street'],
    ['1600 Pennsylvania Avenue, Apt 4', '1600 Pennsylvania Avenue, Apt 4'],
  ])('finds the street and house in "%s"', (text, value) => {
    expect(addresses(text)).toEqual([value]);
  });

  it('needs a house number', () => {
    expect(addresses('Встреча на ул. Ленина в 10:00.')).toEqual([]);
    expect(addresses('we met on Baker Street')).toEqual([]);
  });
});
