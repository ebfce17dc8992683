import type { Provider } from '@nestjs/common';
import { GroupCommitKeptReplyStore } from '@openpaw/messaging';
import { preparedSqlRunner } from '@openpaw/persistence';
import { serviceDatabaseProviders } from '@openpaw/platform';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { RETRIEVAL_SCHEMA } from '../config.js';
import { RETRIEVAL_REPLIES, RETRIEVAL_SETTINGS } from '../ports.js';
import { retrievalMigrations } from './migrations/index.js';

export const RETRIEVAL_DATA_SOURCE = Symbol('openpaw.retrieval.dataSource');

/**
 * The pg pool under the TypeORM data source (`PostgresDriver.master`). The domain's PostgreSQL stores
 * (catalogue, embedded vectors) are written against `pg` directly; sharing the data source's pool keeps
 * one pool per process, sized by `OPENPAW_RETRIEVAL_POOL_SIZE`.
 */
export function pgPoolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as { master?: unknown }).master;
  if (typeof pool !== 'object' || pool === null || typeof (pool as { query?: unknown }).query !== 'function') {
    throw new Error('the retrieval data source has no pg pool (expected the postgres driver)');
  }
  return pool as Pool;
}

export const databaseProviders: Provider[] = [
  ...serviceDatabaseProviders({
    service: 'retrieval',
    dataSourceToken: RETRIEVAL_DATA_SOURCE,
    settingsToken: RETRIEVAL_SETTINGS,
    schema: RETRIEVAL_SCHEMA,
    migrations: retrievalMigrations,
  }),
  {
    provide: RETRIEVAL_REPLIES,
    inject: [RETRIEVAL_DATA_SOURCE],
    // Every command is looked up and its answer kept: concurrent deliveries share one look-up and one
    // commit (group commit), as named statements.
    useFactory: (dataSource: DataSource) => new GroupCommitKeptReplyStore(preparedSqlRunner(dataSource, 'retrieval_replies'), RETRIEVAL_SCHEMA),
  },
];
