/** What a StreamRestorer needs of a request's placeholders. */
export interface PlaceholderSource {
  restore(text: string): string;
  isPlaceholderPrefix(s: string): boolean;
  readonly maxPlaceholderLength: number;
}

/**
 * Restores placeholders in a text that arrives in pieces (SSE deltas). A piece is passed on at once,
 * except a tail that may be the start of a placeholder: that is held until the next piece completes
 * it (then restored) or shows it is not one (then passed on as it was). Nothing is held longer than
 * a placeholder's length; `flush` gives what is held when the text ends.
 */
export class StreamRestorer {
  private held = '';

  constructor(private readonly source: PlaceholderSource) {}

  /** The text to pass on for this piece (may be empty while a placeholder is being completed). */
  push(piece: string): string {
    const text = this.held + piece;
    this.held = '';
    if (!text) return '';
    const from = Math.max(0, text.length - this.source.maxPlaceholderLength + 1);
    let cut = text.length;
    for (let i = text.lastIndexOf('[', text.length - 1); i >= from; i = text.lastIndexOf('[', i - 1)) {
      if (this.source.isPlaceholderPrefix(text.slice(i))) cut = i;
      if (i === 0) break;
    }
    this.held = text.slice(cut);
    return this.source.restore(text.slice(0, cut));
  }

  /** What is still held: the text ended, so it goes out as it is. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return this.source.restore(rest);
  }

  /** True while a tail is held. */
  get holding(): boolean {
    return this.held.length > 0;
  }
}
