import type { PoolClient } from 'pg';
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

/**
 * Names for SQL texts (`<prefix>_<n>`, one per distinct text), for named statements: PostgreSQL parses
 * and plans a named statement once per connection. One namer per prefix, so a name never means two texts.
 */
export function statementNamer(prefix: string): (sql: string) => string {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `${prefix}_${names.size + 1}`;
      names.set(sql, name);
    }
    return name;
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
  const relaxed = options.synchronousCommit === 'off';
  const nameOf = statementNamer(prefix);
  return {
    async query<T>(sql: string, parameters: readonly unknown[] = []): Promise<T[]> {
      const runner = dataSource.createQueryRunner();
      try {
        const client = (await runner.connect()) as PoolClient;
        const statement = { name: nameOf(sql), text: sql, values: [...parameters] };
        if (!relaxed) return (await client.query(statement)).rows as T[];
        // One round trip opens the transaction and relaxes its commit (a simple query may hold both).
        await client.query('begin; set local synchronous_commit = off');
        try {
          const rows = (await client.query(statement)).rows as T[];
          await client.query('commit');
          return rows;
        } catch (error) {
          await client.query('rollback').catch(() => undefined);
          throw error;
        }
      } finally {
        await runner.release();
      }
    },
  };
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
