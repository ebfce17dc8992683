import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { INGESTION_SCHEMA, type IngestionSettings } from '../config.js';
import { INGESTION_REPLIES, INGESTION_SETTINGS } from '../ports.js';
import { ingestionMigrations } from './migrations/index.js';
import { PgIngestionReplyStore } from './pg-ingestion-reply.store.js';

export const INGESTION_DATA_SOURCE = Symbol('openpaw.ingestion.dataSource');

/** Closes the data source last, after the consumers have stopped. */
@Injectable()
export class IngestionDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(INGESTION_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  {
    provide: INGESTION_DATA_SOURCE,
    inject: [INGESTION_SETTINGS],
    useFactory: (settings: IngestionSettings): Promise<DataSource> =>
      openDatabase({
        url: settings.databaseUrl,
        schema: INGESTION_SCHEMA,
        migrations: ingestionMigrations,
        poolSize: settings.poolSize,
        applicationName: 'openpaw-ingestion',
      }),
  },
  {
    provide: INGESTION_REPLIES,
    inject: [INGESTION_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new PgIngestionReplyStore(dataSource),
  },
  IngestionDatabaseLifecycle,
];
