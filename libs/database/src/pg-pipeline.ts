import { types } from 'pg';
import type { PgRow } from './pg-group-commit';

/** One statement of a pipeline: a named prepared statement and its parameters. */
export interface PipelinedStatement {
  name: string;
  text: string;
  values: unknown[];
}

export interface PipelinedResult {
  rows: PgRow[];
  affected: number;
}

/** What node-postgres' Connection offers a submitted query (the subset a pipeline uses). */
interface WireConnection {
  parsedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  parse(q: { name: string; text: string; types?: unknown[] }): void;
  bind(q: { statement: string; values: unknown[] }): void;
  describe(q: { type: 'P'; name: string }): void;
  execute(q: { rows: number }): void;
  sync(): void;
}

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

/** A parameter as the wire takes it (text format), or undefined when it needs node-postgres' own mapping. */
function wireValue(v: unknown): string | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** True when every parameter is a string, number, bigint, boolean or null (what a pipeline sends as is). */
export function pipelinable(values: unknown[]): boolean {
  return values.every((v) => wireValue(v) !== undefined);
}

/**
 * Several prepared statements sent in ONE round trip (the extended protocol's pipelining: Parse where
 * the connection has not prepared the statement yet, then Bind / Describe / Execute for each, and a
 * single Sync). Postgres runs everything before the Sync as one implicit transaction: it commits at
 * the Sync when every statement succeeded; at the first error it skips the rest and rolls back — all
 * or nothing, as a BEGIN … COMMIT of the same statements, without their round trips.
 *
 * Submitted with `client.query(pipeline)` (node-postgres' submittable interface, as cursors use), so
 * the client's queue and its error handling stay in charge; `done` settles at the closing
 * ReadyForQuery. After a failure the statements this pipeline prepared are in an unknown state on the
 * connection: the caller must not give the connection back to the pool.
 */
export class PgPipeline {
  readonly done: Promise<PipelinedResult[]>;
  /** set by node-postgres when it wraps the query in a read timeout (query_timeout): told of the end */
  callback?: (err: unknown, res?: unknown) => void;
  private resolve!: (r: PipelinedResult[]) => void;
  private reject!: (err: unknown) => void;
  private readonly results: PipelinedResult[] = [];
  private fields: FieldDescription[] = [];
  private parsers: Array<(raw: string) => unknown> = [];
  private rows: PgRow[] = [];
  private failed: unknown = null;
  /** the statements this pipeline prepares on its connection (name → text) */
  private prepared: { connection: WireConnection; statements: Map<string, string> } | null = null;

  constructor(private readonly statements: PipelinedStatement[]) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: WireConnection): null {
    connection.stream.cork?.();
    try {
      const parsedHere = new Map<string, string>();
      for (const s of this.statements) {
        if (connection.parsedStatements[s.name] === undefined && !parsedHere.has(s.name)) {
          connection.parse({ name: s.name, text: s.text });
          parsedHere.set(s.name, s.text);
        }
        connection.bind({ statement: s.name, values: s.values.map(wireValue) });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ rows: 0 });
      }
      connection.sync();
      // known once the pipeline succeeded (see handleReadyForQuery); on failure the connection is dropped
      this.prepared = { connection, statements: parsedHere };
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: FieldDescription[] }): void {
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text'));
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    const row: PgRow = {};
    for (let i = 0; i < this.fields.length; i++) {
      const raw = msg.fields[i];
      row[this.fields[i].name] = raw === null ? null : this.parsers[i](raw);
    }
    this.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    // "INSERT 0 1", "UPDATE 3", "SELECT 2": the last number is the rows affected or returned
    const n = /(\d+)$/.exec(msg.text);
    this.results.push({ rows: this.rows, affected: n ? Number(n[1]) : this.rows.length });
    this.rows = [];
    this.fields = [];
    this.parsers = [];
  }

  handleEmptyQuery(): void {
    this.results.push({ rows: [], affected: 0 });
  }

  handleError(err: unknown): void {
    if (this.failed) return;
    this.failed = err;
    this.reject(err);
    this.callback?.(err);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    if (this.results.length !== this.statements.length) {
      this.handleError(new Error(`pipeline: ${this.results.length} results for ${this.statements.length} statements`));
      return;
    }
    if (this.prepared)
      for (const [name, text] of this.prepared.statements) this.prepared.connection.parsedStatements[name] = text;
    this.resolve(this.results);
    this.callback?.(null, this.results);
  }

  handlePortalSuspended(): void {
    this.handleError(new Error('pipeline: unexpected portal suspension'));
  }

  handleCopyInResponse(): void {
    this.handleError(new Error('pipeline: unexpected COPY'));
  }

  handleCopyData(): void {
    /* never asked for */
  }
}
