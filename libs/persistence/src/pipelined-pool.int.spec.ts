import { openDatabase } from './data-source.js';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import type pg from 'pg';
import { pipelinedPoolOf, sentTogether } from './pipelined-pool.js';

/**
 * A connection that dies while a batch holds it (PostgreSQL stopped or restarted mid-load, a backend
 * terminated) must fail that batch only: pg emits the server's goodbye as an 'error' on a client that
 * has no query in flight, and without a listener that ends the process (CI: the coordinator died on
 * EPIPE when PostgreSQL stopped mid-load, and 50 runs never finished).
 */
describe('pipelinedPoolOf (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('saga_pipelined_pool'), schema: 'coordinator', entities: [], migrations: [] });
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('survives a held connection whose backend is killed: its next statement fails, the pool connects anew', async () => {
    const pool = pipelinedPoolOf(dataSource);
    try {
      const held = await pool.connect();
      const [row] = (await held.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
      await held.query('begin');
      // Another session kills the held one between statements (the batch is mid-transaction).
      await dataSource.query('select pg_terminate_backend($1)', [row?.pid]);
      // The server's FATAL reaches the idle client as an 'error' event; the process must live through it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(held.query('select 1')).rejects.toThrow();
      held.release(true);
      // The broken connection is gone; the next batch gets a new one.
      const again = await pool.query<{ n: number }>('select 2 as n');
      expect(again.rows[0]?.n).toBe(2);
    } finally {
      await pool.end();
    }
  });

  it('fails a pipelined transaction whose backend dies mid-way, and commits the next one', async () => {
    const pool = pipelinedPoolOf(dataSource);
    try {
      await pool.query('create table if not exists pipelined_probe (n int primary key)');
      const held = await pool.connect();
      const [row] = (await held.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
      // Pipelined: begin, an insert that waits, commit — all written at once; the backend dies while it waits.
      const statements = [held.query('begin'), held.query('insert into pipelined_probe select 1 from pg_sleep(1)'), held.query('commit')];
      const settled = Promise.allSettled(statements);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await dataSource.query('select pg_terminate_backend($1)', [row?.pid]);
      const outcomes = await settled;
      expect(outcomes.slice(1).every((o) => o.status === 'rejected')).toBe(true);
      held.release(true);
      // Nothing of the dead transaction was kept; a new one commits.
      expect((await pool.query('select count(*)::int as n from pipelined_probe')).rows[0]).toEqual({ n: 0 });
      await pool.query('insert into pipelined_probe values (2)');
      expect((await pool.query('select n from pipelined_probe')).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('sends the statements queued in sentTogether in one socket write, and each one alone otherwise', async () => {
    const pool = pipelinedPoolOf(dataSource);
    try {
      const client = await pool.connect();
      // Count the socket's writes (each is one system call): Node's stream calls _write for one buffered
      // chunk and _writev for several.
      const socket = (client as unknown as { connection: { stream: { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void } } }).connection.stream;
      let writes = 0;
      for (const method of ['_write', '_writev'] as const) {
        const original = socket[method].bind(socket);
        socket[method] = (...args: unknown[]) => {
          writes += 1;
          original(...args);
        };
      }
      const transaction = (c: pg.PoolClient) => [c.query('begin'), c.query('select $1::int as n', [1]), c.query('commit')];

      const together = sentTogether(client, () => transaction(client));
      expect(writes).toBe(1);
      await Promise.all(together);

      writes = 0;
      await Promise.all(transaction(client));
      expect(writes).toBe(3);
      client.release();
    } finally {
      await pool.end();
    }
  });
});
