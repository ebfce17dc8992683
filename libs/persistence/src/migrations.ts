import { MigrationExecutor, type DataSource, type MigrationInterface } from 'typeorm';

/*
 * Who migrates: in a cluster only the migrations Job (`tools/migrate.js`), holding a PostgreSQL
 * advisory lock; a service checks at start that its schema has every migration it knows and waits
 * (then fails with a clear message) when it does not. Locally (`./scripts/up.sh`, tests) a service
 * may migrate its own schema at start, under the same lock, so concurrent starts never race.
 */

/** `run`: migrate at start under the advisory lock (local dev). `verify`: only check the version (cluster). */
export type MigrationMode = 'run' | 'verify';

/** The advisory lock every migrator takes (one key per database: `pg_advisory_lock(hashtext('openpaw:migrations'))`). */
export const MIGRATIONS_LOCK_KEY = 'openpaw:migrations';

/** `OPENPAW_MIGRATIONS` (`run` | `verify`), default `run` so a laptop needs nothing else. */
export function migrationModeFromEnv(env: NodeJS.ProcessEnv = process.env): MigrationMode {
  const raw = env['OPENPAW_MIGRATIONS']?.trim() ?? '';
  if (raw === '' || raw === 'run') return 'run';
  if (raw === 'verify') return 'verify';
  throw new Error(`OPENPAW_MIGRATIONS must be run or verify, got "${raw}"`);
}

/** The names TypeORM records for these migrations (`name` property, else the class name). */
export function migrationNames(migrations: readonly (new () => MigrationInterface)[]): string[] {
  return migrations.map((Migration) => new Migration().name ?? Migration.name);
}

function quoted(schema: string): string {
  return `"${schema.replace(/"/g, '')}"`;
}

/**
 * Creates the schema if missing and applies pending migrations, holding the advisory lock on the
 * connection that runs them: a second migrator (another Job, a service in `run` mode)
 * waits, then finds nothing to do. Returns the names applied.
 */
export async function migrateWithLock(dataSource: DataSource, schema: string): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('select pg_advisory_lock(hashtext($1))', [MIGRATIONS_LOCK_KEY]);
    let applied: string[];
    try {
      await runner.query(`create schema if not exists ${quoted(schema)}`);
      // On the locked connection itself, so a pool of one cannot deadlock against the lock.
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      applied = (await executor.executePendingMigrations()).map((migration) => migration.name);
    } catch (error) {
      // The lock belongs to the session: when the connection is gone (PostgreSQL stopped mid-way)
      // the lock went with it, and the migration's own error is the one to report.
      await runner.query('select pg_advisory_unlock(hashtext($1))', [MIGRATIONS_LOCK_KEY]).catch(() => undefined);
      throw error;
    }
    await runner.query('select pg_advisory_unlock(hashtext($1))', [MIGRATIONS_LOCK_KEY]);
    return applied;
  } finally {
    await runner.release();
  }
}

/** The migrations this code knows that the schema has not applied (empty: the schema is at or past this version). */
export async function pendingMigrations(dataSource: DataSource, schema: string, migrations: readonly (new () => MigrationInterface)[]): Promise<string[]> {
  const known = migrationNames(migrations);
  const [{ exists } = { exists: false }] = await dataSource.query<{ exists: boolean }[]>(
    `select exists (select 1 from information_schema.tables where table_schema = $1 and table_name = 'migrations') as exists`,
    [schema],
  );
  if (!exists) return known;
  const rows = await dataSource.query<{ name: string }[]>(`select name from ${quoted(schema)}.migrations`);
  const applied = new Set(rows.map((row) => row.name));
  return known.filter((name) => !applied.has(name));
}

export interface VerifyOptions {
  /** How long to wait for the migrations Job before giving up. Default 120 s. */
  readonly waitMs?: number;
  readonly pollMs?: number;
  readonly onWaiting?: (pending: readonly string[]) => void;
}

/**
 * Waits until the schema has every migration this code knows (the Job may still be running), then
 * returns; throws after `waitMs` naming what is missing. A schema ahead of the code is fine: a
 * release's migrations are additive (expand, then contract one release later).
 */
export async function verifySchema(
  dataSource: DataSource,
  schema: string,
  migrations: readonly (new () => MigrationInterface)[],
  options: VerifyOptions = {},
): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  for (;;) {
    const pending = await pendingMigrations(dataSource, schema, migrations);
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      throw new Error(`schema ${schema} lacks migrations ${pending.join(', ')}: run the migrations Job (node dist/tools/migrate.js) first`);
    }
    options.onWaiting?.(pending);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 2_000));
  }
}
