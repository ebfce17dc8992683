import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source.js';
import { applyRetention, RETENTION_LOCK_KEY, runRetention, schemaTableSizes, tableSizes, type RetentionRule } from './retention.js';

const DAY = 86_400_000;

describe('retention (real PostgreSQL)', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = createDataSource({ url: await freshDatabase('retention'), schema: 'ret', poolSize: 3 });
    await ds.initialize();
    await ds.query('create schema ret');
    await ds.query('create table ret.inbox (message_id text primary key, processed_at timestamptz not null)');
    await ds.query('create table ret.runs (id int primary key, state text not null)');
    await ds.query('create table ret.timers (run_id int not null, name text not null, fire_at timestamptz not null)');
    // 2500 old dedup rows (beyond the horizon), 10 recent ones.
    await ds.query(`insert into ret.inbox select 'old-' || g, now() - interval '20 days' from generate_series(1, 2500) g`);
    await ds.query(`insert into ret.inbox select 'new-' || g, now() - interval '1 hour' from generate_series(1, 10) g`);
    await ds.query(`insert into ret.runs values (1, 'COMPLETED'), (2, 'WAITING')`);
    await ds.query(`insert into ret.timers values (1, 'deadline', now() - interval '2 days'), (2, 'deadline', now() - interval '2 days'), (1, 'later', now() + interval '1 day')`);
  });

  afterAll(async () => {
    await ds.destroy();
  });

  const inbox: RetentionRule = { table: 'ret.inbox', column: 'processed_at', horizonMs: 14 * DAY, minimumHorizonMs: 7 * DAY };

  it('deletes only rows past the horizon, in batches; keeps timers of live runs', async () => {
    expect(await applyRetention(ds, inbox, 1000)).toEqual({ table: 'ret.inbox', deleted: 2500 });
    expect(await ds.query('select count(*)::int as n from ret.inbox')).toEqual([{ n: 10 }]);
    const timers: RetentionRule = {
      table: 'ret.timers',
      column: 'fire_at',
      horizonMs: 60 * 60_000,
      where: 'exists (select 1 from ret.runs r where r.id = t.run_id and r.state = any($2::text[]))',
      params: [['COMPLETED', 'FAILED', 'CANCELLED']],
    };
    expect(await applyRetention(ds, timers)).toEqual({ table: 'ret.timers', deleted: 1 });
    expect(await ds.query('select run_id, name from ret.timers order by run_id, name')).toEqual([
      { run_id: 1, name: 'later' },
      { run_id: 2, name: 'deadline' },
    ]);
  });

  it('refuses a horizon below the safe minimum (duplicate window, redelivery bound, stream age)', async () => {
    await expect(runRetention(ds, [{ ...inbox, horizonMs: DAY }])).rejects.toThrow('below the safe minimum');
  });

  it('one run at a time: a second runner finds the lock taken and does nothing', async () => {
    const holder = ds.createQueryRunner();
    await holder.connect();
    await holder.query('select pg_advisory_lock(hashtext($1))', [RETENTION_LOCK_KEY]);
    try {
      expect(await runRetention(ds, [inbox])).toBeUndefined();
    } finally {
      await holder.query('select pg_advisory_unlock(hashtext($1))', [RETENTION_LOCK_KEY]);
      await holder.release();
    }
    expect(await runRetention(ds, [inbox])).toEqual([{ table: 'ret.inbox', deleted: 0 }]);
  });

  it('reports table sizes, skipping tables that do not exist', async () => {
    await ds.query('analyze ret.inbox');
    const sizes = await tableSizes(ds, ['ret.inbox', 'ret.missing']);
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toMatchObject({ table: 'ret.inbox', rows: 10 });
    expect(sizes[0]?.bytes).toBeGreaterThan(0);
  });

  it('reports the size of every table of a schema', async () => {
    expect((await schemaTableSizes(ds, 'ret')).map((size) => size.table)).toEqual(['ret.inbox', 'ret.runs', 'ret.timers']);
    expect(await schemaTableSizes(ds, 'no_such_schema')).toEqual([]);
  });
});
