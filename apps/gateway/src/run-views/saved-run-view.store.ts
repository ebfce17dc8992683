import type { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../projection/run-projection.entity.js';

/** The runs-list filter a view keeps (validated by the route's schema before it is stored). */
export type SavedRunsFilter = Readonly<Record<string, string>>;

export interface SavedRunView {
  readonly name: string;
  readonly filter: SavedRunsFilter;
  readonly createdAt: Date;
}

/** What saving a view came to: saved, or refused because the name is taken or the user has `limit` views. */
export type SaveViewOutcome = { readonly kind: 'saved'; readonly view: SavedRunView } | { readonly kind: 'name_taken' } | { readonly kind: 'limit_reached'; readonly limit: number };

interface ViewRow {
  name: string;
  filter: SavedRunsFilter;
  created_at: Date;
}

const TABLE = `"${GATEWAY_SCHEMA}"."saved_run_views"`;

const toView = (row: ViewRow): SavedRunView => ({ name: row.name, filter: row.filter, createdAt: row.created_at });

/** The gateway's `saved_run_views` table: each user's named filter sets for the runs list. */
export class SavedRunViewStore {
  constructor(private readonly dataSource: DataSource) {}

  async list(userId: string): Promise<SavedRunView[]> {
    const rows: ViewRow[] = await this.dataSource.query(`select name, filter, created_at from ${TABLE} where user_id = $1 order by created_at, name`, [userId]);
    return rows.map(toView);
  }

  /**
   * Saves a view unless the name is taken or the user already has `limit`. One transaction holding a
   * per-user advisory lock, so two saves at once cannot both pass the count.
   */
  async save(userId: string, name: string, filter: SavedRunsFilter, limit: number): Promise<SaveViewOutcome> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`select pg_advisory_xact_lock(hashtextextended('saved_run_views:' || $1, 0))`, [userId]);
      const [count] = await manager.query<{ total: number }[]>(`select count(*)::int as total from ${TABLE} where user_id = $1`, [userId]);
      const inserted: ViewRow[] = await manager.query(
        `insert into ${TABLE} (user_id, name, filter) select $1, $2, $3::jsonb where $4::int < $5::int
         on conflict (user_id, name) do nothing returning name, filter, created_at`,
        [userId, name, JSON.stringify(filter), count?.total ?? 0, limit],
      );
      const [row] = inserted;
      if (row !== undefined) return { kind: 'saved', view: toView(row) };
      const [taken] = await manager.query<unknown[]>(`select 1 from ${TABLE} where user_id = $1 and name = $2`, [userId, name]);
      return taken === undefined ? { kind: 'limit_reached', limit } : { kind: 'name_taken' };
    });
  }

  /** Deletes the user's view of that name; false when there was none. */
  async delete(userId: string, name: string): Promise<boolean> {
    // TypeORM answers a DELETE on PostgreSQL as [rows, affected count].
    const result = await this.dataSource.query<[unknown[], number]>(`delete from ${TABLE} where user_id = $1 and name = $2`, [userId, name]);
    return result[1] > 0;
  }
}
