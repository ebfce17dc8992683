import type { Provider } from '@nestjs/common';
import { serviceDatabaseProviders } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { SOLVE_SCHEMA } from '../config.js';
import { SOLVE_ATTEMPTS, SOLVE_SETTINGS } from '../ports.js';
import { solveMigrations } from './migrations/index.js';
import { PgSolveAttemptStore } from './pg-solve-attempt.store.js';
import { SolutionAttemptEntity } from './solution-attempt.entity.js';

export const SOLVE_DATA_SOURCE = Symbol('openpaw.solve.dataSource');

export const databaseProviders: Provider[] = [
  ...serviceDatabaseProviders({
    service: 'solve',
    dataSourceToken: SOLVE_DATA_SOURCE,
    settingsToken: SOLVE_SETTINGS,
    schema: SOLVE_SCHEMA,
    entities: [SolutionAttemptEntity],
    migrations: solveMigrations,
  }),
  {
    provide: SOLVE_ATTEMPTS,
    inject: [SOLVE_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new PgSolveAttemptStore(dataSource),
  },
];
