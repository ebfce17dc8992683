import 'reflect-metadata';
import { DataSource, type MixedList, type MigrationInterface, type EntitySchema } from 'typeorm';

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

/** Initialises the data source, creates its schema if missing and applies pending migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  const dataSource = createDataSource(options);
  await dataSource.initialize();
  try {
    await dataSource.query(`create schema if not exists "${options.schema.replace(/"/g, '')}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
