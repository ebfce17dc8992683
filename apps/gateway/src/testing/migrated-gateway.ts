import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { gatewayMigrations } from '../projection/migrations/index.js';

type GatewayMigration = (typeof gatewayMigrations)[number];

/**
 * The gateway's schema at `url` migrated up to `migration` (included unless `including` is false).
 * A migration's spec stops at its own migration, so undoing the last one undoes it (later migrations
 * have their own specs).
 */
export function openGatewayUpTo(url: string, migration: GatewayMigration, { including = true } = {}): Promise<DataSource> {
  const index = gatewayMigrations.indexOf(migration);
  if (index < 0) throw new Error(`${migration.name} is not one of the gateway's migrations`);
  return openDatabase({ url, schema: 'gateway', migrations: gatewayMigrations.slice(0, including ? index + 1 : index) });
}

/** Whether the table (schema-qualified) exists. */
export async function tableExists(database: DataSource, table: string): Promise<boolean> {
  const [row] = await database.query<{ found: string | null }[]>(`select to_regclass($1)::text as found`, [table]);
  return typeof row?.found === 'string';
}

/** Whether `table` exists after the last migration is undone, then after it runs again: a table-creating migration's down and up. */
export async function tableAfterDownThenUp(database: DataSource, table: string): Promise<{ readonly afterDown: boolean; readonly afterUp: boolean }> {
  await database.undoLastMigration();
  const afterDown = await tableExists(database, table);
  await database.runMigrations();
  return { afterDown, afterUp: await tableExists(database, table) };
}
