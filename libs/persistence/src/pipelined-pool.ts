import pg from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Connections in pg's pipeline mode, for transactions on a hot path (the saga store's batches, the
 * gateway's relaxed projection writes): a statement is written without waiting for the answer to the
 * one before, so a transaction's `begin` travels with its first statement and its last statement with
 * its `commit`. Each round trip wakes PostgreSQL and this process once; on a busy machine a wake-up
 * costs more than the statement. The pool takes the data source's connection settings (URL,
 * search_path, application name, size unless `maxConnections` says otherwise).
 */
export function pipelinedPoolOf(dataSource: DataSource, options: PipelinedPoolOptions = {}): pg.Pool {
  // TypeORM's PostgreSQL driver keeps its pg pool as `master` (not in its types).
  const master = (dataSource.driver as unknown as { master?: { options?: pg.PoolConfig } }).master;
  if (master?.options === undefined) throw new Error('a pipelined pool needs an initialized PostgreSQL data source');
  const startupOptions = options.genericPlans === true ? withGenericPlans(master.options.options) : master.options.options;
  // allowExitOnIdle: idle connections never keep the process alive (its user may not close the pool).
  const pool = new pg.Pool({
    ...master.options,
    ...(startupOptions === undefined ? {} : { options: startupOptions }),
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
    pipeline: true,
    allowExitOnIdle: true,
  });
  // An idle connection that dies (PostgreSQL restarted) is dropped by the pool; the next batch connects anew.
  pool.on('error', () => undefined);
  // A connection that dies while a batch holds it (the pool listens only to idle ones) emits 'error' on
  // its client, which would end the process; the batch's statements fail with it and the batch is
  // released as broken, so the error is handled there. (CI: PostgreSQL stopped mid-load, EPIPE killed
  // the coordinator.)
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export interface PipelinedPoolOptions {
  readonly maxConnections?: number;
  /**
   * Named statements planned once per connection, for every use (`plan_cache_mode =
   * force_generic_plan`). Left to choose, PostgreSQL plans a named statement anew for each use's values
   * while such a plan looks cheaper than the generic one; a batch's statement (arrays of one to three
   * rows, whose sizes a value-specific plan sees) always does, and on tables of production size it
   * then pays a planning per batch (ADR 0034). Set as a startup parameter beside `search_path`, so it
   * costs no message; a connection through a transaction pooler (`OPENPAW_DATABASE_SEARCH_PATH=role`,
   * no startup parameters) plans as PostgreSQL chooses unless its role sets it.
   */
  readonly genericPlans?: boolean;
}

/** The startup `options` with generic plans, when the connection sends startup options at all. */
function withGenericPlans(startupOptions: string | undefined): string | undefined {
  return startupOptions === undefined ? undefined : `${startupOptions} -c plan_cache_mode=force_generic_plan`;
}

/** What a pooled client's socket offers for writing several statements at once. */
interface CorkableSocket {
  cork(): void;
  uncork(): void;
}

/**
 * Runs `send` with the client's socket corked, so the statements it writes leave in one system call
 * (one packet for PostgreSQL to wake up for) instead of one each: pg writes every statement the
 * moment it is queued in pipeline mode. Statements queued later (after an await) are not held back.
 */
export function sentTogether<T>(client: pg.ClientBase, send: () => T): T {
  // pg's Client keeps its socket as `connection.stream` (public in pg, not in its types).
  const socket = (client as unknown as { connection?: { stream?: Partial<CorkableSocket> } }).connection?.stream;
  const corkable = typeof socket?.cork === 'function' && typeof socket.uncork === 'function' ? (socket as CorkableSocket) : undefined;
  corkable?.cork();
  try {
    return send();
  } finally {
    corkable?.uncork();
  }
}
