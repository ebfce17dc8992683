import pg from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Connections for the store's batches, in pg's pipeline mode: a statement is written without waiting
 * for the answer to the one before, so a batch's `begin` travels with its first statement and its
 * write with its `commit` (two round trips per batch instead of four). Each round trip wakes
 * PostgreSQL and this process once; on a busy machine a wake-up costs more than the statement.
 * The pool takes the data source's connection settings (URL, search_path, application name, size).
 */
export function pipelinedPoolOf(dataSource: DataSource): pg.Pool {
  // TypeORM's PostgreSQL driver keeps its pg pool as `master` (not in its types).
  const master = (dataSource.driver as unknown as { master?: { options?: pg.PoolConfig } }).master;
  if (master?.options === undefined) throw new Error('SagaStore needs an initialized PostgreSQL data source');
  // allowExitOnIdle: idle connections never keep the process alive (the store may not be closed).
  const pool = new pg.Pool({ ...master.options, pipeline: true, allowExitOnIdle: true });
  // An idle connection that dies (PostgreSQL restarted) is dropped by the pool; the next batch connects anew.
  pool.on('error', () => undefined);
  // A connection that dies while a batch holds it (the pool listens only to idle ones) emits 'error' on
  // its client, which would end the process; the batch's statements fail with it and the batch is
  // released as broken, so the error is handled there. (CI: PostgreSQL stopped mid-load, EPIPE killed
  // the coordinator.)
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
