import 'reflect-metadata';
import { DataSource, type MixedList, type MigrationInterface, type EntitySchema } from 'typeorm';
import { migrateWithLock, migrationModeFromEnv, verifySchema, type MigrationMode } from './migrations.js';

/**
 * How connections resolve unqualified names in the service's schema:
 * - `startup`: the `search_path` startup parameter on every connection (direct to PostgreSQL; the default).
 * - `role`: the role's own default (`ALTER ROLE … SET search_path = <schema>`), checked at start. What a
 *   transaction pooler needs: PgBouncer refuses the `options` startup parameter, and a session `SET`
 *   would leak between clients sharing a server connection.
 */
export type SearchPathMode = 'startup' | 'role';

const SEARCH_PATH_MODES: readonly SearchPathMode[] = ['startup', 'role'];

/** `OPENPAW_DATABASE_SEARCH_PATH` (`startup` | `role`), default `startup`; throws naming the setting when it is neither. */
export function searchPathModeFromEnv(env: NodeJS.ProcessEnv = process.env): SearchPathMode {
  const raw = env['OPENPAW_DATABASE_SEARCH_PATH']?.trim() || 'startup';
  const mode = SEARCH_PATH_MODES.find((m) => m === raw);
  if (mode === undefined) throw new Error(`OPENPAW_DATABASE_SEARCH_PATH must be one of ${SEARCH_PATH_MODES.join(', ')}, got "${raw}"`);
  return mode;
}

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
   * Start-up with PostgreSQL down, in recovery, or going away mid-migration: the start is retried with backoff
   * (1 s doubling to 30 s) until this signal aborts; each retry is reported. Default: retry forever.
   */
  readonly waitForDatabase?: { readonly signal?: AbortSignal; readonly onRetry?: (attempt: number, error: Error, delayMs: number) => void };
  /** `run` migrates under the advisory lock, `verify` only checks the version. Default `OPENPAW_MIGRATIONS` (else `run`). */
  readonly migrationMode?: MigrationMode;
  /** `verify`: how long to wait for the migrations Job. Default `OPENPAW_MIGRATIONS_WAIT_MS` or 120 s. */
  readonly migrationWaitMs?: number;
  /** Default `OPENPAW_DATABASE_SEARCH_PATH` (else `startup`). */
  readonly searchPath?: SearchPathMode;
}

function schemaName(options: DatabaseOptions): string {
  return options.schema.replace(/[^a-z0-9_]/gi, '');
}

/** Errors that mean "PostgreSQL is not there (yet)": worth waiting for, unlike bad credentials or SQL. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P03', '57P01', '08001', '08006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  // Duck-typed, not `instanceof Error`: a socket error can come from another realm (a jest VM context).
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && /not yet accepting connections|starting up|shutting down|Connection terminated|connect ECONNREFUSED/i.test(message);
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
    extra: { max: options.poolSize ?? 10, ...((options.searchPath ?? searchPathModeFromEnv()) === 'startup' ? { options: `-c search_path=${schemaName(options)}` } : {}) },
  });
}

/**
 * Initialises the data source and makes sure its schema is at this code's version: in `run` mode by
 * applying pending migrations under the advisory lock, in `verify` mode by waiting for the
 * migrations Job (see `migrations.ts`).
 */
export function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  // PostgreSQL can also go away after the connection was made, mid-migration (an immediate stop, a
  // failover): waited for like a refused connection, on a fresh data source.
  return whileDatabaseUnavailable(options.waitForDatabase ?? {}, async () => {
    const dataSource = createDataSource(options);
    await dataSource.initialize();
    try {
      if ((options.searchPath ?? searchPathModeFromEnv()) === 'role') await assertRoleSearchPath(dataSource, schemaName(options));
      await bringSchemaToVersion(dataSource, options);
      return dataSource;
    } catch (error) {
      await dataSource.destroy().catch(() => undefined);
      throw error;
    }
  });
}

/** `role` mode: the role's default search_path must start with the service's schema, or nothing would find its tables. */
async function assertRoleSearchPath(dataSource: DataSource, schema: string): Promise<void> {
  const [row] = await dataSource.query<Array<{ role: string; path: string }>>(`select current_user as role, current_setting('search_path') as path`);
  const first = (row?.path ?? '').split(',')[0]?.trim().replace(/^"(.*)"$/, '$1');
  if (first !== schema) {
    throw new Error(
      `OPENPAW_DATABASE_SEARCH_PATH=role, but role "${row?.role ?? '?'}" has search_path "${row?.path ?? ''}"; ` +
        `set its default first: ALTER ROLE "${row?.role ?? '?'}" SET search_path = ${schema}`,
    );
  }
}

async function bringSchemaToVersion(dataSource: DataSource, options: DatabaseOptions): Promise<void> {
  const mode = options.migrationMode ?? migrationModeFromEnv();
  if (mode === 'run') {
    await migrateWithLock(dataSource, options.schema);
    return;
  }
  const waitMs = options.migrationWaitMs ?? Number(process.env['OPENPAW_MIGRATIONS_WAIT_MS'] ?? 120_000);
  await verifySchema(dataSource, options.schema, options.migrations ?? [], { waitMs });
}

/** 1 s doubling to 30 s. */
function backoffMs(attempt: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(attempt - 1, 5));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function reportRetry(attempt: number, error: Error, delayMs: number): void {
  if (attempt === 1 || attempt % 10 === 0) {
    process.stderr.write(`${JSON.stringify({ level: 'warn', time: Date.now(), msg: 'PostgreSQL unavailable; retrying', attempt, retryInMs: delayMs, err: error.message })}\n`);
  }
}

/** Runs `call`, again with backoff for as long as it fails because PostgreSQL is unreachable or not accepting connections. */
async function whileDatabaseUnavailable<T>(wait: NonNullable<DatabaseOptions['waitForDatabase']>, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || wait.signal?.aborted === true) throw error;
      const delayMs = backoffMs(attempt);
      (wait.onRetry ?? reportRetry)(attempt, error as Error, delayMs);
      await sleep(delayMs, wait.signal);
    }
  }
}
