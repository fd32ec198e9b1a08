/**
 * Postal addresses (the optional entity `address`): a street keyword and a house number. Russian: "ул. Ленина, д. 5,
 * кв. 12", "пр-т Мира 10к2", "Тверская улица, дом 7"; English: "221B Baker Street", "1600 Pennsylvania Ave, Apt 4".
 * The span runs from the street keyword (or the house number in English) to the last of house, building and flat.
 * The street keywords are found first; the full patterns run on a window around each.
 */
import { TextScan } from './scan';
import { match, PiiMatch } from './types';

const RU_STREET = String.raw`(?:ул\.|улиц[аеыу]|пр-т|пр-кт|просп\.|проспект[аеу]?|пер\.|переул(?:ок|ке|ка)|ш\.|шоссе|б-р|бульвар[аеу]?|наб\.|набережн(?:ая|ой|ую)|пл\.|площад(?:ь|и)|проезд[аеу]?|пр-д|тупик[аеу]?|аллея|мкр\.?|микрорайон[аеу]?)`;
const RU_HOUSE = String.raw`(?:д\.|дом|вл\.|влад\.)?\s?\d{1,4}[а-яА-Я]?(?:\s?[/кK]\s?\d{1,3})?(?:,?\s?(?:корп\.|корпус|к\.|стр\.|строение)\s?\d{1,3})?(?:,?\s?(?:кв\.|квартира|оф\.|офис|пом\.)\s?\d{1,4})?`;
const RU_ADDRESS = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:${RU_STREET}\s?[\p{Lu}\d][\p{L}\d.\- ]{0,40}?|[\p{Lu}][\p{L}\-]{2,30} ${RU_STREET}),?\s?${RU_HOUSE}(?![\p{L}\p{N}]|[:.,]\d)`,
  'gu',
);
const RU_KEY =
  /ул\.|улиц|пр-т|пр-кт|просп|пер\.|переул|ш\.|шоссе|б-р|бульвар|наб\.|набережн|пл\.|площад|проезд|пр-д|тупик|аллея|мкр|микрорайон/g;

const EN_STREET = String.raw`(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Court|Ct\.?|Place|Pl\.?|Square|Sq\.?|Way|Terrace|Highway|Hwy\.?)`;
const EN_ADDRESS = new RegExp(
  String.raw`(?<![\p{L}\p{N}])\d{1,5}[A-Za-z]?\s(?:[A-Z][a-z]+\s){1,3}${EN_STREET}(?:,?\s(?:Apt\.?|Apartment|Suite|Unit|#)\s?\d{1,5}[A-Za-z]?)?(?![\p{L}\p{N}]|[:.,]\d)`,
  'gu',
);
const EN_KEY =
  /\b(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Square|Sq|Way|Terrace|Highway|Hwy)\b/g;

export function addresses(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  const seen = new Set<number>();
  /** runs the pattern once over each stretch of text within reach of a keyword (overlapping stretches merged) */
  const run = (keys: IterableIterator<RegExpMatchArray>, re: RegExp, back: number, ahead: number) => {
    const ranges: [number, number][] = [];
    for (const k of keys) {
      const from = Math.max(0, (k.index ?? 0) - back);
      const to = (k.index ?? 0) + ahead;
      const last = ranges[ranges.length - 1];
      if (last && from <= last[1]) last[1] = to;
      else ranges.push([from, to]);
    }
    for (const [from, to] of ranges)
      for (const m of text.slice(from, to).matchAll(re)) {
        const start = from + (m.index ?? 0);
        let end = start + m[0].length;
        if (text[end - 1] === '.') end--; // "St." closing a sentence
        if (seen.has(start)) continue;
        seen.add(start);
        out.push(match('address', text, start, end));
      }
  };
  run(scan.lower.matchAll(RU_KEY), RU_ADDRESS, 34, 90);
  run(text.matchAll(EN_KEY), EN_ADDRESS, 60, 40);
  return out;
}
