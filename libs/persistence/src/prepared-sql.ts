import pg, { type Pool, type PoolClient, type QueryResult } from 'pg';
import { pipelinedPoolOf, sentTogether } from './pipelined-pool.js';
import type { DataSource } from 'typeorm';

/** Runs SQL with positional parameters and answers its rows. */
export interface PreparedSql {
  query<T = unknown>(sql: string, parameters?: readonly unknown[]): Promise<T[]>;
}

export interface PreparedSqlOptions {
  /**
   * `'off'`: each statement runs in its own transaction with `SET LOCAL synchronous_commit = off`,
   * so its commit does not wait for the WAL flush (a crash may lose the last ~3 × wal_writer_delay of
   * commits, never corrupt or half-apply one). ONLY for state rebuilt from a durable source (the
   * gateway's projection, ADR 0023); everything else keeps synchronous commit. `SET LOCAL` ends with
   * the transaction, so it is safe behind a transaction pooler and leaves the pooled connection as it was.
   */
  readonly synchronousCommit?: 'on' | 'off';
}

/** Uses of a statement after which it is named (and so planned) anew; each step ×4 the one before. */
const FIRST_REPLAN_AFTER = 256;
const REPLAN_GROWTH = 4;
/** Past this many uses a statement keeps its name: its tables are as big as they get, and autovacuum's statistics replan it. */
const LAST_REPLAN_AFTER = FIRST_REPLAN_AFTER * REPLAN_GROWTH ** 8;

/**
 * Names for SQL texts (`<prefix>_<n>`, one per distinct text), for named statements: PostgreSQL parses
 * and plans a named statement once per connection. One namer per prefix, so a name never means two texts.
 *
 * A named statement keeps the plan made for the tables as they were when it was first used: on a fresh
 * database that is empty tables, whose best plan is a scan, kept while they grow (until statistics
 * are gathered again). So a text is named anew (`<prefix>_<n>_<generation>`) each time this process's
 * uses of it grow fourfold, from 256 up to ~16 million: each connection then plans it once more, for
 * the tables as they are by then.
 */
export function statementNamer(prefix: string): (sql: string) => string {
  const names = new Map<string, { readonly n: number; uses: number; nextReplan: number; generation: number }>();
  return (sql) => {
    let entry = names.get(sql);
    if (entry === undefined) {
      entry = { n: names.size + 1, uses: 0, nextReplan: FIRST_REPLAN_AFTER, generation: 0 };
      names.set(sql, entry);
    }
    entry.uses += 1;
    if (entry.uses > entry.nextReplan && entry.nextReplan <= LAST_REPLAN_AFTER) {
      entry.generation += 1;
      entry.nextReplan *= REPLAN_GROWTH;
    }
    return entry.generation === 0 ? `${prefix}_${entry.n}` : `${prefix}_${entry.n}_${entry.generation}`;
  };
}

/**
 * For hot paths (every run event the gateway projects, every kept reply a service looks up and keeps):
 * each statement goes straight to the pg client of a pooled connection as a named statement, so
 * PostgreSQL parses and plans it once per connection instead of on every call, and TypeORM's
 * per-query layers (query runner, logging, subscribers) are skipped. Same SQL, same rows as
 * `dataSource.query`. `prefix` keeps the statement names of two users of one pool apart.
 */
export function preparedSql(dataSource: DataSource, prefix: string, options: PreparedSqlOptions = {}): PreparedSql {
  const nameOf = statementNamer(prefix);
  if (options.synchronousCommit === 'off') return relaxedSql(dataSource, nameOf);
  return {
    async query<T>(sql: string, parameters: readonly unknown[] = []): Promise<T[]> {
      const runner = dataSource.createQueryRunner();
      try {
        const client = (await runner.connect()) as PoolClient;
        return (await client.query({ name: nameOf(sql), text: sql, values: [...parameters] })).rows as T[];
      } finally {
        await runner.release();
      }
    },
  };
}

/**
 * Each statement in its own transaction with a relaxed commit, in one round trip: `begin; set local
 * synchronous_commit = off` (one query string), the statement and `commit` leave together on a pipelined connection
 * (`pipelinedPoolOf`), and PostgreSQL answers them together. A statement PostgreSQL refuses aborts
 * the transaction, and the COMMIT behind it then ends it as a ROLLBACK: its error is thrown, nothing kept.
 */
function relaxedSql(dataSource: DataSource, nameOf: (sql: string) => string): PreparedSql {
  return {
    async query<T>(sql: string, parameters: readonly unknown[] = []): Promise<T[]> {
      const client = await relaxedPoolOf(dataSource).connect();
      let broken: Error | undefined;
      try {
        const statements = sentTogether(client, () => [
          // One query string, one answer: PostgreSQL runs both and says ReadyForQuery once.
          client.query('begin; set local synchronous_commit = off'),
          client.query({ name: nameOf(sql), text: sql, values: [...parameters] }),
          client.query('commit'),
        ]);
        const [begun, answered, committed] = await Promise.allSettled(statements);
        const failed = [begun, answered, committed].find((settled) => settled?.status === 'rejected');
        if (failed !== undefined) {
          // Refused by PostgreSQL, the transaction ended as a ROLLBACK and the connection is fine;
          // any other failure (the connection died) closes the connection instead of reusing it.
          if (!isServerError(failed.reason)) broken = failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
          throw failed.reason;
        }
        if (committed?.status !== 'fulfilled' || committed.value.command !== 'COMMIT') {
          throw new Error(`the statement's transaction ended with ${committed?.status === 'fulfilled' ? committed.value.command : 'no answer'}, not COMMIT`);
        }
        return (answered as PromiseFulfilledResult<QueryResult>).value.rows as T[];
      } finally {
        client.release(broken);
      }
    },
  };
}

/**
 * The relaxed writers' connections, one pool per data source (beside the data source's own pool):
 * their users batch their statements (the gateway's projection writes at most 3 batches at once), so
 * a few connections carry them, and the service's connection count stays close to its pool size.
 */
const RELAXED_CONNECTIONS = 3;
const relaxedPools = new WeakMap<DataSource, Pool>();

function relaxedPoolOf(dataSource: DataSource): Pool {
  let pool = relaxedPools.get(dataSource);
  if (pool === undefined) {
    pool = pipelinedPoolOf(dataSource, { maxConnections: RELAXED_CONNECTIONS });
    relaxedPools.set(dataSource, pool);
  }
  return pool;
}

/** An error PostgreSQL answered (an ErrorResponse), as opposed to a connection that failed (EPIPE, ECONNRESET, terminated). */
function isServerError(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

/** TypeORM-shaped (`DataSource.query`): `T` names the whole result (the rows), unchecked. What kept-reply stores run on. */
export interface PreparedSqlRunner {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

/** `preparedSql` behind the TypeORM-shaped `query` (e.g. for `@openpaw/messaging`'s kept-reply stores). */
export function preparedSqlRunner(dataSource: DataSource, prefix: string, options: PreparedSqlOptions = {}): PreparedSqlRunner {
  const sql = preparedSql(dataSource, prefix, options);
  return {
    query: async <T>(text: string, parameters: unknown[] = []): Promise<T> => (await sql.query(text, parameters)) as T,
  };
}
