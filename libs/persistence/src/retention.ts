import type { DataSource } from 'typeorm';

/*
 * Retention for tables that grow without bound (dedup records, replies, finished timers). Rows go
 * in small batches (short transactions, no long locks), and the horizon of a dedup table must
 * exceed every window in which its message can come back: JetStream's duplicate window, the
 * redelivery bound (max deliveries x the longest ack wait / backoff) and, so that a replay of a
 * stream's retained messages is still de-duplicated, the stream's max age.
 */

export interface RetentionRule {
  /** Schema-qualified, e.g. `coordinator.inbox`. */
  readonly table: string;
  /** The timestamp column the horizon applies to. */
  readonly column: string;
  readonly horizonMs: number;
  /** Extra SQL condition on the row (aliased `t`), e.g. timers of terminal runs only; `$1` is the horizon cut-off. */
  readonly where?: string;
  /** Parameters of `where` from `$2` on. */
  readonly params?: readonly unknown[];
  /**
   * The least horizon that is safe for this table (duplicate window, redelivery bound, stream max
   * age); a shorter configured horizon is refused.
   */
  readonly minimumHorizonMs?: number;
}

export interface RetentionResult {
  readonly table: string;
  readonly deleted: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

function checked(rule: RetentionRule): RetentionRule {
  if (!IDENTIFIER.test(rule.table) || !/^[a-z_][a-z0-9_]*$/.test(rule.column)) throw new Error(`retention: bad table or column ${rule.table}.${rule.column}`);
  if (rule.minimumHorizonMs !== undefined && rule.horizonMs < rule.minimumHorizonMs) {
    throw new Error(`retention: horizon of ${rule.table} is ${rule.horizonMs} ms, below the safe minimum ${rule.minimumHorizonMs} ms`);
  }
  return rule;
}

/** Deletes the rows of one rule older than its horizon, `batchSize` at a time; returns how many. */
export async function applyRetention(dataSource: DataSource, rule: RetentionRule, batchSize = 1_000): Promise<RetentionResult> {
  const { table, column, horizonMs, where, params = [] } = checked(rule);
  const cutoff = new Date(Date.now() - horizonMs);
  const limit = Math.max(1, Math.floor(batchSize));
  let deleted = 0;
  for (;;) {
    // A select around the delete: TypeORM answers a bare DELETE with [rows, count], a SELECT with rows.
    const [row] = await dataSource.query<{ n: number }[]>(
      `with gone as (
         delete from ${table} where ctid = any(array(
           select t.ctid from ${table} t where t.${column} < $1 ${where === undefined ? '' : `and (${where})`} limit ${limit}
         )) returning 1
       ) select count(*)::int as n from gone`,
      [cutoff, ...params],
    );
    const count = row?.n ?? 0;
    deleted += count;
    if (count < limit) return { table, deleted };
  }
}

/** The advisory lock the retention run takes, so one replica (or one CronJob run) does it at a time. */
export const RETENTION_LOCK_KEY = 'openpaw:retention';

/** Applies every rule while holding the retention lock; returns undefined when another run holds it. */
export async function runRetention(dataSource: DataSource, rules: readonly RetentionRule[]): Promise<RetentionResult[] | undefined> {
  rules.forEach(checked);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // QueryRunner.query is untyped (any); the row shape is the select's.
    const [row] = (await runner.query('select pg_try_advisory_lock(hashtext($1)) as locked', [RETENTION_LOCK_KEY])) as { locked: boolean }[];
    if (row?.locked !== true) return undefined;
    try {
      const results: RetentionResult[] = [];
      for (const rule of rules) results.push(await applyRetention(dataSource, rule));
      return results;
    } finally {
      await runner.query('select pg_advisory_unlock(hashtext($1))', [RETENTION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

export interface TableSize {
  readonly table: string;
  readonly bytes: number;
  /** The planner's estimate (cheap; exact counts would scan). */
  readonly rows: number;
}

/** Size on disk (with indexes and TOAST) and estimated row count of each table; missing tables are skipped. */
export async function tableSizes(dataSource: DataSource, tables: readonly string[]): Promise<TableSize[]> {
  const rows = await dataSource.query<{ table: string; bytes: string; rows: string }[]>(
    `select t.name as table, pg_total_relation_size(c.oid)::text as bytes, greatest(c.reltuples, 0)::bigint::text as rows
       from unnest($1::text[]) as t(name)
       join pg_class c on c.oid = to_regclass(t.name)`,
    [tables],
  );
  return rows.map((r) => ({ table: r.table, bytes: Number(r.bytes), rows: Number(r.rows) }));
}

/** `tableSizes` of every table of one schema (a service's own: whatever its migrations created). */
export async function schemaTableSizes(dataSource: DataSource, schema: string): Promise<TableSize[]> {
  const rows = await dataSource.query<{ table: string }[]>(
    `select format('%s.%s', schemaname, tablename) as table from pg_tables where schemaname = $1 and tablename <> 'migrations' order by tablename`,
    [schema],
  );
  return tableSizes(
    dataSource,
    rows.map((r) => r.table),
  );
}
