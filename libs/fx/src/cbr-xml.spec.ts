import { encode } from 'iconv-lite';
import { CbrXmlError, parseCbrDaily } from './cbr-xml';

/** The head of a real XML_daily.asp answer (28.11.2026 layout), in Windows-1251. */
const XML = `<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="28.11.2026" name="Foreign Currency Market"><Valute ID="R01235"><NumCode>840</NumCode><CharCode>USD</CharCode><Nominal>1</Nominal><Name>Доллар США</Name><Value>81,5345</Value><VunitRate>81,5345</VunitRate></Valute><Valute ID="R01820"><NumCode>392</NumCode><CharCode>JPY</CharCode><Nominal>100</Nominal><Name>Японских иен</Name><Value>53,7021</Value><VunitRate>0,537021</VunitRate></Valute><Valute ID="R01335"><NumCode>398</NumCode><CharCode>KZT</CharCode><Nominal>10000</Nominal><Name>Казахстанских тенге</Name><Value>1589,4</Value><VunitRate>0,15894</VunitRate></Valute></ValCurs>`;

describe('CBR daily XML', () => {
  it('reads the date, the decimal comma and the nominal from Windows-1251 bytes', () => {
    const daily = parseCbrDaily(encode(XML, 'win1251'));
    expect(daily.date).toBe('2026-11-28');
    expect(daily.rates.get('USD')).toEqual({ code: 'USD', nominal: 1, value: '81.5345', rate: '81.5345' });
    // per one unit, exactly: 53.7021 / 100 and 1589.4 / 10000
    expect(daily.rates.get('JPY')?.rate).toBe('0.537021');
    expect(daily.rates.get('KZT')?.rate).toBe('0.15894');
  });

  it('decodes by the encoding the prolog declares', () => {
    const utf8 = XML.replace('windows-1251', 'utf-8');
    expect(parseCbrDaily(Buffer.from(utf8, 'utf8')).rates.get('USD')?.value).toBe('81.5345');
  });

  it('refuses what is not a rate list', () => {
    expect(() => parseCbrDaily(Buffer.from('<html><body>Service unavailable</body></html>'))).toThrow(CbrXmlError);
    expect(() => parseCbrDaily(encode(XML.replace('81,5345', 'n/a'), 'win1251'))).toThrow(/USD Value/);
    expect(() => parseCbrDaily(encode(XML.replace('<Nominal>1</Nominal>', '<Nominal>0</Nominal>'), 'win1251'))).toThrow(
      /Nominal/,
    );
    expect(() => parseCbrDaily(encode(XML.replace('28.11.2026', '2026-11-28'), 'win1251'))).toThrow(/DD.MM.YYYY/);
  });
});
