/**
 * One pass over a text shared by the detectors: the clusters of digits and separators (every structured identifier
 * lives in one), and the lower-cased text for keyword searches. Detectors then run their exact patterns on the few
 * clusters long enough to hold their identifier instead of on the whole text, which keeps a 64 KB prompt fast.
 */

export interface NumberCluster {
  start: number;
  end: number;
  value: string;
  /** how many decimal digits the cluster holds */
  digits: number;
  /** the maximal runs of digits, as absolute spans */
  runs: { start: number; end: number }[];
}

/** A run of digits, spaces, dots, dashes, slashes and brackets that starts (after an optional "+" or "(") and ends with a digit. */
const CLUSTER = /[+(]?\d[\d .\-()/]*/g;
/** Letters (Latin, Latin-1/Extended, Cyrillic), digits and "_": what a number must not be glued to. */
const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 95 ||
  (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) ||
  (c >= 0x400 && c <= 0x4ff);

export class TextScan {
  private clusterList?: NumberCluster[];
  private lowerText?: string;
  /** table rows seen: line start → the start of the first row of its table (same delimiter, same cell count) */
  private readonly tableTop = new Map<number, number>();
  private readonly rows = new Map<string, { delim?: string; cells: string[] }>();
  /** runs of 9 or more digits by length (BIK, INN, OGRN …) */
  private runsByLength?: Map<number, { start: number; end: number; value: string }[]>;

  constructor(readonly text: string) {}

  get lower(): string {
    return (this.lowerText ??= this.text.toLowerCase());
  }

  get clusters(): NumberCluster[] {
    if (this.clusterList) return this.clusterList;
    const out: NumberCluster[] = [];
    for (const m of this.text.matchAll(CLUSTER)) {
      let value = m[0];
      let cut = value.length;
      while (cut > 0 && !isDigit(value.charCodeAt(cut - 1))) cut--;
      value = value.slice(0, cut);
      let digits = 0;
      const runs: { start: number; end: number }[] = [];
      for (let i = 0; i < value.length; i++) {
        if (!isDigit(value.charCodeAt(i))) continue;
        digits++;
        const last = runs[runs.length - 1];
        if (last && last.end === m.index + i) last.end++;
        else runs.push({ start: m.index + i, end: m.index + i + 1 });
      }
      if (digits >= 4) out.push({ start: m.index, end: m.index + value.length, value, digits, runs });
    }
    return (this.clusterList = out);
  }

  /**
   * Every match of a global pattern inside the clusters that hold at least `minDigits` digits (and pass `accept`), as
   * absolute spans; a match touching a cluster's edge must not be glued to a letter in the text around it.
   */
  inClusters(
    re: RegExp,
    minDigits: number,
    accept?: (c: NumberCluster) => boolean,
  ): { start: number; end: number; value: string }[] {
    const out: { start: number; end: number; value: string }[] = [];
    for (const c of this.clusters) {
      if (c.digits < minDigits || (accept && !accept(c))) continue;
      re.lastIndex = 0;
      for (let m = re.exec(c.value); m; m = re.exec(c.value)) {
        const start = c.start + m.index;
        const end = start + m[0].length;
        if (m.index === 0 && !boundaryBefore(this.text, start)) continue;
        if (end === c.end && !boundaryAfter(this.text, end)) continue;
        out.push({ start, end, value: m[0] });
      }
    }
    return out;
  }

  /**
   * The header cell (lower-cased) of the table column holding `start`, when its line is a row of a delimited table
   * (CSV, TSV, `|`): the first of the lines above that have as many cells, up to 100 lines up.
   */
  columnHeader(start: number): string | undefined {
    const { text } = this;
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    if (lineStart === 0) return undefined;
    const row = this.row(lineStart);
    if (!row.delim) return undefined;
    let top: number = this.tableTop.get(lineStart) ?? -1;
    if (top < 0) {
      top = lineStart;
      for (let n = 0; n < 100 && top > 0; n++) {
        const above: number = text.lastIndexOf('\n', top - 2) + 1;
        const r = this.row(above, row.delim);
        if (r.cells.length !== row.cells.length) break;
        const known = this.tableTop.get(above);
        top = known ?? above;
        if (known !== undefined) break;
      }
      this.tableTop.set(lineStart, top);
    }
    if (top === lineStart) return undefined;
    let col = 0;
    for (let i = text.indexOf(row.delim, lineStart); i >= 0 && i < start; i = text.indexOf(row.delim, i + 1)) col++;
    return this.row(top, row.delim).cells[col]?.toLowerCase();
  }

  /** A line's cells, split at the given delimiter or at the first of DELIMITERS it holds (cached per line). */
  private row(lineStart: number, delim?: string): { delim?: string; cells: string[] } {
    const key = `${lineStart}${delim ?? ''}`;
    let r = this.rows.get(key);
    if (!r) {
      const line = lineAt(this.text, lineStart);
      const d = delim ?? DELIMITERS.find((x) => line.includes(x));
      r = { delim: d, cells: d ? line.split(d) : [line] };
      this.rows.set(key, r);
    }
    return r;
  }

  /** The runs of digits of exactly one of these lengths that are not glued to a letter. */
  digitRuns(...lengths: number[]): { start: number; end: number; value: string }[] {
    if (!this.runsByLength) {
      const by = new Map<number, { start: number; end: number; value: string }[]>();
      for (const c of this.clusters)
        for (const r of c.runs) {
          const n = r.end - r.start;
          if (n < 9 || !boundaryBefore(this.text, r.start) || !boundaryAfter(this.text, r.end)) continue;
          let list = by.get(n);
          if (!list) by.set(n, (list = []));
          list.push({ start: r.start, end: r.end, value: this.text.slice(r.start, r.end) });
        }
      this.runsByLength = by;
    }
    return lengths.flatMap((n) => this.runsByLength!.get(n) ?? []);
  }
}

const DELIMITERS = [';', '\t', '|', ','];

const lineAt = (text: string, lineStart: number): string => {
  const end = text.indexOf('\n', lineStart);
  return text.slice(lineStart, end < 0 ? text.length : end);
};

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** True when the span is a whole cell of a delimited line (CSV, TSV, `|` tables), spaces aside. */
export function isCell(text: string, start: number, end: number): boolean {
  let a = start - 1;
  while (a >= 0 && text[a] === ' ') a--;
  let b = end;
  while (b < text.length && text[b] === ' ') b++;
  return (
    (a < 0 || CELL_EDGE.includes(text[a])) &&
    (b >= text.length || CELL_EDGE.includes(text[b])) &&
    (a >= 0 || b < text.length)
  );
}
const CELL_EDGE = ';,\t|\n\r';

/** True when the character before `start` is not a letter, a digit or `_`. */
export const boundaryBefore = (text: string, start: number): boolean =>
  start === 0 || !isWordChar(text.charCodeAt(start - 1));
/** True when the character at `end` is not a letter, a digit or `_`. */
export const boundaryAfter = (text: string, end: number): boolean =>
  end >= text.length || !isWordChar(text.charCodeAt(end));
