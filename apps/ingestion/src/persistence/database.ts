import type { Provider } from '@nestjs/common';
import { GroupCommitKeptReplyStore } from '@openpaw/messaging';
import { preparedSqlRunner } from '@openpaw/persistence';
import { serviceDatabaseProviders } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { INGESTION_SCHEMA } from '../config.js';
import { INGESTION_REPLIES, INGESTION_SETTINGS } from '../ports.js';
import { ingestionMigrations } from './migrations/index.js';

export const INGESTION_DATA_SOURCE = Symbol('openpaw.ingestion.dataSource');

export const databaseProviders: Provider[] = [
  ...serviceDatabaseProviders({
    service: 'ingestion',
    dataSourceToken: INGESTION_DATA_SOURCE,
    settingsToken: INGESTION_SETTINGS,
    schema: INGESTION_SCHEMA,
    migrations: ingestionMigrations,
  }),
  {
    provide: INGESTION_REPLIES,
    inject: [INGESTION_DATA_SOURCE],
    // Every command is looked up and its answer kept: concurrent deliveries share one look-up and one
    // commit (group commit), as named statements.
    useFactory: (dataSource: DataSource) => new GroupCommitKeptReplyStore(preparedSqlRunner(dataSource, 'ingestion_replies'), INGESTION_SCHEMA),
  },
];
