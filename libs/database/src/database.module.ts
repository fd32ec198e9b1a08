import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { TransactionRunner } from './transaction-runner';
import { SqliteGroupCommit } from './sqlite-group-commit';
import { PgGroupCommit } from './pg-group-commit';
import { DatabaseHealth } from './database-health';
import { DatabaseLogger } from './database-logger';
import { SqliteCheckpointer } from './sqlite-checkpointer';

/**
 * Postgres or embedded SQLite; entities are registered by each module (forFeature, autoLoadEntities).
 * Pending migrations run at start, before any repository exists (Postgres: under an advisory lock
 * so replicas starting together don't race).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // DatabaseLogger: structured lines, SQL text only — bound parameters are never logged
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config),
        autoLoadEntities: true,
        logger: new DatabaseLogger(),
      }),
      // migrations run before any repository is built, so nothing can touch an old schema
      dataSourceFactory: async (options) => {
        if (!options) throw new Error('no data source options');
        const dataSource = await new DataSource(options).initialize();
        await runMigrations(dataSource, new Logger('Database'));
        return dataSource;
      },
    }),
  ],
  providers: [TransactionRunner, DatabaseHealth, SqliteGroupCommit, PgGroupCommit, SqliteCheckpointer],
  exports: [TransactionRunner, DatabaseHealth, SqliteGroupCommit, PgGroupCommit, SqliteCheckpointer],
})
export class DatabaseModule {}

const MIGRATION_LOCK_KEY = 727_001;

export async function runMigrations(dataSource: DataSource, logger?: Logger): Promise<void> {
  if (dataSource.options.type === 'postgres') {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      if (applied.length) logger?.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      await runner.release();
    }
    return;
  }
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  if (applied.length) logger?.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
}
