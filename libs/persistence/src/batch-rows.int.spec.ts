import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { fewBatchRows } from './batch-rows.js';
import { openDatabase } from './data-source.js';

/**
 * A named statement joining a batch from a JSON parameter to a table keeps the plan it was given:
 * with `json_to_recordset` alone (estimated at 100 rows) that is a scan of the whole table per batch.
 */
describe('fewBatchRows (real PostgreSQL)', () => {
  let dataSource: DataSource;
  const plansOf = async (name: string, join: string): Promise<string> => {
    await dataSource.query(`prepare ${name}(json) as update batch_rows_probe t set version = r.version from ${join} where t.id = r.id`);
    const rows: Array<{ 'QUERY PLAN': string }> = await dataSource.query(`explain execute ${name}('[{"id":"00000000-0000-0000-0000-000000000001","version":2}]')`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('persistence_batch_rows'), schema: 'public', entities: [], migrations: [] });
    await dataSource.query('create table batch_rows_probe (id uuid primary key, version int not null, data jsonb not null)');
    // Rows the size of a run's (a view of a few hundred bytes), enough of them that scanning costs more than probing.
    await dataSource.query(`insert into batch_rows_probe select gen_random_uuid(), 1, jsonb_build_object('view', repeat('v', 400)) from generate_series(1, 5000)`);
    await dataSource.query('analyze batch_rows_probe');
    // Every execution on the generic plan, as a named statement gets after its first five.
    await dataSource.query('set plan_cache_mode = force_generic_plan');
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('without it, the planner scans the whole table for a one-row batch', async () => {
    const plan = await plansOf('plain_rows', 'json_to_recordset($1::json) as r(id uuid, version int)');
    expect(plan).toMatch(/Seq Scan on batch_rows_probe/);
  });

  it('with it, the join probes the primary key, and every row of the batch is still there', async () => {
    const plan = await plansOf('few_rows', `${fewBatchRows('json_to_recordset($1::json) as r(id uuid, version int)', '$1::json')} as r`);
    expect(plan).not.toMatch(/Seq Scan on batch_rows_probe/);
    expect(plan).toMatch(/Index Scan using batch_rows_probe_pkey/);
    const ids: Array<{ id: string }> = await dataSource.query('select id from batch_rows_probe order by id limit 150');
    const batch = JSON.stringify(ids.map(({ id }) => ({ id, version: 7 })));
    await dataSource.query(`execute few_rows('${batch}')`);
    const [updated] = await dataSource.query('select count(*)::int as n from batch_rows_probe where version = 7');
    expect(updated).toEqual({ n: 150 });
  });

  it('reads jsonb arrays too', async () => {
    const rows: Array<{ n: number }> = await dataSource.query(
      `select count(*)::int as n from ${fewBatchRows(`jsonb_to_recordset($1::jsonb) as r(id int)`, '$1::jsonb')} as r`,
      ['[{"id":1},{"id":2},{"id":3}]'],
    );
    expect(rows).toEqual([{ n: 3 }]);
  });
});
