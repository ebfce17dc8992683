import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { ARTIFACTS_SCHEMA, type ArtifactsSettings } from '../config.js';
import { ARTIFACTS_SETTINGS, REPLY_STORE, SOURCE_STORE } from '../ports.js';
import { artifactsMigrations } from './migrations/index.js';
import { PgReplyStore } from './pg-reply-store.js';
import { PgSourceStore } from './pg-source-store.js';

export const ARTIFACTS_DATA_SOURCE = Symbol('openpaw.artifacts.dataSource');

/** Closes the data source last, after the consumers have stopped. */
@Injectable()
export class ArtifactsDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(ARTIFACTS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  {
    provide: ARTIFACTS_DATA_SOURCE,
    inject: [ARTIFACTS_SETTINGS],
    useFactory: (settings: ArtifactsSettings): Promise<DataSource> =>
      openDatabase({
        url: settings.databaseUrl,
        schema: ARTIFACTS_SCHEMA,
        migrations: artifactsMigrations,
        poolSize: settings.poolSize,
        applicationName: 'openpaw-artifacts',
      }),
  },
  { provide: SOURCE_STORE, inject: [ARTIFACTS_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgSourceStore(dataSource) },
  { provide: REPLY_STORE, inject: [ARTIFACTS_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgReplyStore(dataSource) },
  ArtifactsDatabaseLifecycle,
];
