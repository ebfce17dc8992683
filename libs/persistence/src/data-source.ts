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
  /**
   * Start-up with PostgreSQL down or in recovery: connection failures are retried with backoff
   * (1 s doubling to 30 s) until this signal aborts; each retry is reported. Default: retry forever.
   */
  readonly waitForDatabase?: { readonly signal?: AbortSignal; readonly onRetry?: (attempt: number, error: Error, delayMs: number) => void };
  /** `run` migrates under the advisory lock, `verify` only checks the version. Default `OPENPAW_MIGRATIONS` (else `run`). */
  readonly migrationMode?: MigrationMode;
  /** `verify`: how long to wait for the migrations Job. Default `OPENPAW_MIGRATIONS_WAIT_MS` or 120 s. */
  readonly migrationWaitMs?: number;
}

/** Errors that mean "PostgreSQL is not there (yet)": worth waiting for, unlike bad credentials or SQL. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P03', '57P01', '08001', '08006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return /not yet accepting connections|starting up|shutting down|Connection terminated|connect ECONNREFUSED/i.test(error.message);
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
  await initializeWhenAvailable(dataSource, options.waitForDatabase ?? {});
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

function reportRetry(attempt: number, error: Error, delayMs: number): void {
  if (attempt === 1 || attempt % 10 === 0) {
    process.stderr.write(`${JSON.stringify({ level: 'warn', time: Date.now(), msg: 'PostgreSQL unavailable; retrying', attempt, retryInMs: delayMs, err: error.message })}\n`);
  }
}

/** `initialize()`, retried with backoff while PostgreSQL is unreachable or not accepting connections. */
async function initializeWhenAvailable(dataSource: DataSource, wait: NonNullable<DatabaseOptions['waitForDatabase']>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await dataSource.initialize();
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error) || wait.signal?.aborted === true) throw error;
      const delayMs = Math.min(30_000, 1_000 * 2 ** Math.min(attempt - 1, 5));
      (wait.onRetry ?? reportRetry)(attempt, error as Error, delayMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        wait.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
  }
}
