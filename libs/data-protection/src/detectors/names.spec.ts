import { detectPii } from './index';
import { firstNameForms } from './names-ru';

const people = (text: string) => detectPii(text, { entities: ['person'] }).map((m) => m.value);

describe('Russian names', () => {
  it('derives the case forms of first names', () => {
    expect(firstNameForms('Анна')).toEqual(expect.arrayContaining(['анна', 'анны', 'анне', 'анну', 'анной']));
    expect(firstNameForms('Ольга')).toContain('ольги');
    expect(firstNameForms('Андрей')).toEqual(expect.arrayContaining(['андрея', 'андрею', 'андреем']));
    expect(firstNameForms('Игорь')).toContain('игорем');
    expect(firstNameForms('Павел')).toContain('павла');
    expect(firstNameForms('Мария')).toEqual(expect.arrayContaining(['марии', 'марию', 'марией']));
  });

  it.each([
    ['Меня зовут Иванов Иван Иванович.', 'Иванов Иван Иванович'],
    ['Передайте Петровой Анне Сергеевне, что всё готово.', 'Петровой Анне Сергеевне'],
    ['Договор с Андреем Викторовичем Соколовым подписан.', 'Андреем Викторовичем Соколовым'],
    ['Спасибо, Мария Ивановна!', 'Мария Ивановна'],
    ['Звонил Сергей Кузнецов.', 'Сергей Кузнецов'],
    ['Подписал Кузнецов А. В.', 'Кузнецов А. В.'],
    ['Подписал Кузнецов А.В.', 'Кузнецов А.В.'],
    ['Копию получил И.И. Смирнов.', 'И.И. Смирнов'],
    ['Передайте Ю. А. Калининой документы.', 'Ю. А. Калининой'],
    ['Анна Сергеевна Ким уточнила адрес.', 'Анна Сергеевна Ким'],
    ['Клиент Сидоров Ярополк Павлович', 'Сидоров Ярополк Павлович'],
    ['Письмо для Ковальской Ольги', 'Ковальской Ольги'],
  ])('finds the name in "%s"', (text, name) => {
    expect(people(text)).toEqual([name]);
  });

  it('does not report a single word, cities or capitalised common words', () => {
    expect(people('Привет, Лена! Перезвоню.')).toEqual([]);
    expect(people('Иванов пришёл вовремя.')).toEqual([]);
    expect(people('Москва, Санкт-Петербург и Новосибирск.')).toEqual([]);
    expect(people('Уважаемый клиент, Магазин Бензин закрыт.')).toEqual([]);
  });
});

describe('English names', () => {
  it.each([
    ['Please ask Mark Johnson about it.', 'Mark Johnson'],
    ['Spoke to John F. Kennedy today.', 'John F. Kennedy'],
    ['CC: Mary Ann Evans', 'Mary Ann Evans'],
    ['Dear Mr. Smith, thanks.', 'Smith'],
    ['Dr. Emily Brown will call.', 'Emily Brown'],
    ["Forward to Sarah O'Brien.", "Sarah O'Brien"],
    ['Contact Dmitry Ivanov in Moscow.', 'Dmitry Ivanov'],
  ])('finds the name in "%s"', (text, name) => {
    expect(people(text)).toEqual([name]);
  });

  it('does not report first names alone, or first names that are words at the start of a sentence', () => {
    expect(people('Thanks, Anna!')).toEqual([]);
    expect(people('Will Support reply today? Mark The Ticket.')).toEqual([]);
    expect(people('Best Regards, Support Team')).toEqual([]);
  });
});
