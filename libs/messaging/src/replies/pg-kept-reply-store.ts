import { messageCounters } from '../message-budget.js';
import type { KeptReplyStore } from './kept-replies.js';
import { keptForm, restoredReplies } from './reply-codec.js';
import type { Reply } from './reply.js';

/** Anything that runs SQL with `$n` parameters: a TypeORM `DataSource`, or the `EntityManager` of a transaction. */
export interface SqlRunner {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

/** The table every service keeps its replies in, in its own schema. FROZEN: renaming it needs a migration. */
export const KEPT_REPLIES_TABLE = 'command_replies';

/**
 * The DDL of `<schema>.command_replies`, for a service's migration: one row per answered command,
 * its replies in publishing order as `[{ subject, id, data }]`; `created_at` is what retention prunes by.
 */
export function keptRepliesTableDdl(schema: string): string {
  return `create table "${schema}"."${KEPT_REPLIES_TABLE}" (
    command_id text primary key,
    replies jsonb not null,
    created_at timestamptz not null default now()
  )`;
}

/**
 * `KeptReplyStore` over PostgreSQL: `<schema>.command_replies`. Built on a data source, or on a
 * transaction's entity manager when the replies must be kept atomically with the work's own writes.
 */
export class PgKeptReplyStore implements KeptReplyStore {
  private readonly table: string;

  constructor(
    private readonly sql: SqlRunner,
    private readonly schema: string,
    /** Whether `sql` commits each statement (not a transaction's: that commit is its owner's). */
    private readonly autocommit = true,
  ) {
    this.table = `"${schema}"."${KEPT_REPLIES_TABLE}"`;
  }

  /** The same store, running its SQL in `transaction`. */
  within(transaction: SqlRunner): PgKeptReplyStore {
    return new PgKeptReplyStore(transaction, this.schema, false);
  }

  async find(commandId: string): Promise<readonly Reply[] | undefined> {
    messageCounters.lookups += 1;
    const rows = await this.sql.query<{ replies: unknown }[]>(`select replies from ${this.table} where command_id = $1`, [commandId]);
    const row = rows[0];
    return row === undefined ? undefined : restoredReplies(row.replies);
  }

  async keep(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    const inserted = await this.sql.query<unknown[]>(`insert into ${this.table} (command_id, replies) values ($1, $2::jsonb) on conflict (command_id) do nothing returning 1`, [
      commandId,
      JSON.stringify(keptForm(replies)),
    ]);
    if (this.autocommit) messageCounters.commits += 1;
    if (inserted.length > 0) return replies;
    // Another delivery answered first: its answer is the one.
    const kept = await this.find(commandId);
    if (kept === undefined) throw new Error(`replies of command ${commandId} were neither kept nor found`);
    return kept;
  }
}
