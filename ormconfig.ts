/**
 * TypeORM CLI data source (migrations). Same options as the running service:
 *   npm run build && npm run migration:run      (DATABASE_URL set → Postgres, else DATA_DIR/gateway.db)
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AppConfig } from './libs/config/src';
import { dataSourceOptions } from './libs/database/src/data-source-options';

export default new DataSource(dataSourceOptions(AppConfig.fromEnv()));
