import 'reflect-metadata';
import { DataSource, type MixedList, type MigrationInterface, type EntitySchema } from 'typeorm';
import { migrateWithLock, migrationModeFromEnv, verifySchema, type MigrationMode } from './migrations.js';

export interface DatabaseOptions {
  /** postgres://user@host:port/db */
  readonly url: string;
  /** Each service owns one schema; no service reads another's tables. */
  readonly schema: string;
  // TypeORM's own entity list type; classes or schemas.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly entities?: MixedList<Function | string | EntitySchema>;
  readonly migrations?: readonly (new () => MigrationInterface)[];
  readonly poolSize?: number;
  readonly applicationName?: string;
  /** `run` migrates under the advisory lock, `verify` only checks the version. Default `OPENPAW_MIGRATIONS` (else `run`). */
  readonly migrationMode?: MigrationMode;
  /** `verify`: how long to wait for the migrations Job. Default `OPENPAW_MIGRATIONS_WAIT_MS` or 120 s. */
  readonly migrationWaitMs?: number;
}

/** A TypeORM data source for one service schema. Migrations only: never `synchronize`. */
export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities ?? [],
    migrations: [...(options.migrations ?? [])],
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? `openpaw-${options.schema}`,
    // Raw SQL (migrations, hot paths) resolves unqualified names in the service's own schema.
    extra: { max: options.poolSize ?? 10, options: `-c search_path=${options.schema.replace(/[^a-z0-9_]/gi, '')}` },
  });
}

/**
 * Initialises the data source and makes sure its schema is at this code's version: in `run` mode by
 * applying pending migrations under the advisory lock, in `verify` mode by waiting for the
 * migrations Job (see `migrations.ts`).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  const dataSource = createDataSource(options);
  await dataSource.initialize();
  try {
    const mode = options.migrationMode ?? migrationModeFromEnv();
    if (mode === 'run') await migrateWithLock(dataSource, options.schema);
    else {
      const waitMs = options.migrationWaitMs ?? Number(process.env['OPENPAW_MIGRATIONS_WAIT_MS'] ?? 120_000);
      await verifySchema(dataSource, options.schema, options.migrations ?? [], { waitMs });
    }
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
