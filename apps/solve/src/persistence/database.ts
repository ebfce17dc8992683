import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { SOLVE_SCHEMA, type SolveSettings } from '../config.js';
import { SOLVE_ATTEMPTS, SOLVE_SETTINGS } from '../ports.js';
import { solveMigrations } from './migrations/index.js';
import { PgSolveAttemptStore } from './pg-solve-attempt.store.js';
import { SolutionAttemptEntity } from './solution-attempt.entity.js';

export const SOLVE_DATA_SOURCE = Symbol('openpaw.solve.dataSource');

/** Closes the data source last, after the consumers have stopped. */
@Injectable()
export class SolveDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SOLVE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  {
    provide: SOLVE_DATA_SOURCE,
    inject: [SOLVE_SETTINGS],
    useFactory: (settings: SolveSettings): Promise<DataSource> =>
      openDatabase({
        url: settings.databaseUrl,
        schema: SOLVE_SCHEMA,
        entities: [SolutionAttemptEntity],
        migrations: solveMigrations,
        poolSize: settings.poolSize,
        applicationName: 'openpaw-solve',
      }),
  },
  {
    provide: SOLVE_ATTEMPTS,
    inject: [SOLVE_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new PgSolveAttemptStore(dataSource),
  },
  SolveDatabaseLifecycle,
];
