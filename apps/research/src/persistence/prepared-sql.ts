import type { SqlRunner } from '@openpaw/messaging';
import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A `SqlRunner` for the per-command hot path (every leg, title and synthesis looks its kept reply up
 * and keeps one): each statement goes straight to the pg client of a pooled connection as a named
 * statement, so PostgreSQL parses and plans it once per connection instead of on every call, and
 * TypeORM's per-query layers (query runner, logging, subscribers) are skipped. Same SQL, same rows.
 */
export function preparedSql(dataSource: DataSource, prefix: string): SqlRunner {
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
    async query<T = unknown>(sql: string, parameters: unknown[] = []): Promise<T> {
      const runner = dataSource.createQueryRunner();
      try {
        const client = (await runner.connect()) as PoolClient;
        return (await client.query({ name: nameOf(sql), text: sql, values: parameters })).rows as T;
      } finally {
        await runner.release();
      }
    },
  };
}
