import type { SqlRunner } from '@openpaw/messaging';
import { preparedSql } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';

/**
 * The kept-reply store's `SqlRunner` over named statements (`@openpaw/persistence`'s `preparedSql`):
 * every leg, title and synthesis looks its kept reply up and keeps one.
 */
export function preparedSqlRunner(dataSource: DataSource, prefix: string): SqlRunner {
  const sql = preparedSql(dataSource, prefix);
  return {
    // SqlRunner is TypeORM-shaped: T names the whole result (the rows), unchecked, as in `DataSource.query`.
    query: async <T>(text: string, parameters: unknown[] = []): Promise<T> => (await sql.query(text, parameters)) as T,
  };
}
