import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase, preparedSqlRunner } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { RESEARCH_SCHEMA, type ResearchSettings } from '../config.js';
import { RESEARCH_LIBRARY, RESEARCH_REPLIES, RESEARCH_SETTINGS } from '../ports.js';
import { LibraryReferenceEntity } from './library-reference.entity.js';
import { researchMigrations } from './migrations/index.js';
import { PgLibraryStore } from './pg-library-store.js';

export const RESEARCH_DATA_SOURCE = Symbol('openpaw.research.dataSource');

/** Opens the `research` schema (migrated) for a service or a test. */
export function openResearchDatabase(settings: Pick<ResearchSettings, 'databaseUrl' | 'poolSize'>): Promise<DataSource> {
  return openDatabase({
    url: settings.databaseUrl,
    schema: RESEARCH_SCHEMA,
    entities: [LibraryReferenceEntity],
    migrations: researchMigrations,
    poolSize: settings.poolSize,
    applicationName: 'openpaw-research',
  });
}

/** Closes the data source last, after the consumers have stopped. */
@Injectable()
export class ResearchDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RESEARCH_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  { provide: RESEARCH_DATA_SOURCE, inject: [RESEARCH_SETTINGS], useFactory: (settings: ResearchSettings): Promise<DataSource> => openResearchDatabase(settings) },
  { provide: RESEARCH_LIBRARY, inject: [RESEARCH_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgLibraryStore(dataSource) },
  { provide: RESEARCH_REPLIES, inject: [RESEARCH_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgKeptReplyStore(preparedSqlRunner(dataSource, 'paper_search_replies'), RESEARCH_SCHEMA) },
  ResearchDatabaseLifecycle,
];
