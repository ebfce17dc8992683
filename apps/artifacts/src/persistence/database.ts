import type { Provider } from '@nestjs/common';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { serviceDatabaseProviders } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { ARTIFACTS_SCHEMA } from '../config.js';
import { ARTIFACTS_SETTINGS, REPLY_STORE, SOURCE_STORE } from '../ports.js';
import { artifactsMigrations } from './migrations/index.js';
import { PgSourceStore } from './pg-source-store.js';

export const ARTIFACTS_DATA_SOURCE = Symbol('openpaw.artifacts.dataSource');

export const databaseProviders: Provider[] = [
  ...serviceDatabaseProviders({
    service: 'artifacts',
    dataSourceToken: ARTIFACTS_DATA_SOURCE,
    settingsToken: ARTIFACTS_SETTINGS,
    schema: ARTIFACTS_SCHEMA,
    migrations: artifactsMigrations,
  }),
  { provide: SOURCE_STORE, inject: [ARTIFACTS_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgSourceStore(dataSource) },
  { provide: REPLY_STORE, inject: [ARTIFACTS_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgKeptReplyStore(dataSource, ARTIFACTS_SCHEMA) },
];
