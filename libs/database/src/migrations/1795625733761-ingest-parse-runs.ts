import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Ingestion jobs count the parser runs of their document that did not finish (the parser was
 * stopped for memory or time, or its replica died meanwhile), durably, before each run. A job whose
 * document stopped its parser twice fails with parse_limit_exceeded instead of being parsed again,
 * on any replica and after any restart. Same migration on both drivers.
 */
export class IngestParseRuns1795625733761 implements MigrationInterface {
  name = 'IngestParseRuns1795625733761';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('ingest_jobs', new TableColumn({ name: 'parse_runs', type: 'integer', default: 0 }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('ingest_jobs', 'parse_runs');
  }
}
