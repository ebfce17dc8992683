import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/** Runs SQL with positional parameters and answers its rows. */
export interface PreparedSql {
  query<T = unknown>(sql: string, parameters?: readonly unknown[]): Promise<T[]>;
}

/**
 * For hot paths (every run event the gateway projects, every kept reply a service looks up and keeps):
 * each statement goes straight to the pg client of a pooled connection as a named statement, so
 * PostgreSQL parses and plans it once per connection instead of on every call, and TypeORM's
 * per-query layers (query runner, logging, subscribers) are skipped. Same SQL, same rows as
 * `dataSource.query`. `prefix` keeps the statement names of two users of one pool apart.
 */
export function preparedSql(dataSource: DataSource, prefix: string): PreparedSql {
  const names = new Map<string, string>();
  const nameOf = (sql: string): string => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `${prefix}_${names.size + 1}`;
      names.set(sql, name);
    }
    return name;
  };
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
