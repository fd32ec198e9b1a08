import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '@app/config';
import { migrations } from './migrations';
import { bindBinaryColumns } from './columns';

/**
 * DATABASE_URL set → Postgres; unset → SQLite (better-sqlite3) in DATA_DIR/gateway.db.
 * The same migration list runs on both; synchronize is never on.
 */
export function dataSourceOptions(config: AppConfig, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  bindBinaryColumns(config.databaseKind === 'postgres' ? 'postgres' : 'better-sqlite3');
  if (config.databaseKind === 'postgres') {
    return {
      type: 'postgres',
      url: config.databaseUrl,
      schema: config.databaseSchema,
      entities,
      migrations,
      migrationsRun: false,
      synchronize: false,
      poolSize: config.databasePoolSize,
      extra: { max: config.databasePoolSize, application_name: 'model-gateway' },
    };
  }
  const dir = resolve(config.dataDir);
  mkdirSync(dir, { recursive: true });
  return {
    type: 'better-sqlite3',
    database: join(dir, 'gateway.db'),
    entities,
    migrations,
    migrationsRun: false,
    synchronize: false,
    enableWAL: true,
    prepareDatabase: (db: { pragma: (s: string) => unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
  };
}
