/**
 * RetrieveOrGenerate over the gateway, every service as its own process, local infra (fsync on):
 *  - hit path at 100 requests/s (open loop): (a) identical re-submission (cached result) and
 *    (b) a trivially different copy (a new run: ingest → retrieve → hit), each with ?wait;
 *  - miss path with the instant local model: end-to-end time per run and platform time per step
 *    (from the coordinator's step log).
 *
 * The bench's user is on the free tier; the gateway it starts is given admission limits above the
 * offered load (through `OPENPAW_ADMISSION_JSON`, as an operator would), so the figures measure the
 * path and not the free tier's rate limit (which answers 429 from the first second at 100 req/s).
 *
 * Each variant prints the CPU every process used in its measured seconds, per request (from /proc):
 * what a request costs the platform, apart from queueing.
 *
 *   npm run build && node dist/bench/retrieve-or-generate/hit-path.js [--seconds 15] [--rate 100] [--warmup 3] [--misses 40] [--cpu-prof-dir DIR] [--root DIR] [--only cached|copy]
 *
 * `--cpu-prof-dir DIR`: every service writes a CPU profile (`node --cpu-prof`) into DIR when it stops.
 * `--root DIR`: the services of another checkout's build (DIR/dist), e.g. a baseline's, measured by
 * this bench. `--only cached|copy`: that hit-path variant alone (e.g. to profile it).
 * `--pg-statements`: each variant also prints PostgreSQL's costliest statements over its measured
 * seconds (`pg_stat_statements`: calls, execution and planning time and WAL bytes per call), the services' and
 * the bench's alike; the figures then carry the extension's small overhead.
 */
import pg from 'pg';
import { startBenchPlatform, THIS_CHECKOUT } from '../support/gateway-platform.js';
import { cpuByProcess, cpuLine, cpuSince, writesByProcess, writesLine } from '../support/process-cpu.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const summary = (label: string, latencies: number[], seconds: number): string => {
  latencies.sort((a, b) => a - b);
  return `${label.padEnd(44)} n=${String(latencies.length).padStart(5)}  ${(latencies.length / seconds).toFixed(0).padStart(4)} req/s  p50=${pct(latencies, 50).toFixed(1)} ms  p99=${pct(latencies, 99).toFixed(1)} ms`;
};

/** PostgreSQL's costliest statements since the last reset, per request of the variant. */
async function printCostliestStatements(client: pg.Client, requests: number): Promise<void> {
  const top = await client.query<{ calls: string; exec_ms: number; plan_ms: number; wal_bytes: string; query: string }>(
    `select calls::text, total_exec_time::float8 as exec_ms, total_plan_time::float8 as plan_ms, wal_bytes::text, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
     from pg_stat_statements where query not like '%pg_stat_statements%'
     order by total_exec_time + total_plan_time desc limit 12`,
  );
  console.log(`   PostgreSQL's costliest statements (pg_stat_statements; per request of ${requests}):`);
  for (const row of top.rows) {
    const calls = Number(row.calls);
    const perCall = (ms: number): string => (calls === 0 ? '-' : (ms / calls).toFixed(3));
    console.log(`     ${(calls / Math.max(1, requests)).toFixed(2).padStart(6)} calls  exec ${perCall(row.exec_ms).padStart(6)} ms  plan ${perCall(row.plan_ms).padStart(6)} ms  WAL ${(calls === 0 ? 0 : Number(row.wal_bytes) / calls).toFixed(0).padStart(6)} B per call  ${row.query}`);
  }
}

/** The WAL written since `startLsn`, by record type (pg_walinspect), per request of the variant. */
async function printWalByRecord(client: pg.Client, startLsn: string, requests: number): Promise<void> {
  const stats = await client.query<{ record_type: string; count: string; record_size: string; fpi_size: string }>(
    `select "resource_manager/record_type" as record_type, count::text, record_size::text, fpi_size::text
     from pg_get_wal_stats($1::pg_lsn, pg_current_wal_flush_lsn(), true) where count > 0 order by record_size + fpi_size desc limit 10`,
    [startLsn],
  );
  const total = stats.rows.reduce((sum, r) => sum + Number(r.record_size) + Number(r.fpi_size), 0);
  console.log(`   WAL by record type (pg_walinspect; per request of ${requests}; top 10 of ${(total / Math.max(1, requests)).toFixed(0)} B):`);
  for (const row of stats.rows) {
    const per = (value: string): string => (Number(value) / Math.max(1, requests)).toFixed(0).padStart(6);
    console.log(`     ${(Number(row.count) / Math.max(1, requests)).toFixed(2).padStart(6)} records  ${per(row.record_size)} B  full pages ${per(row.fpi_size)} B  ${row.record_type}`);
  }
  // By relation: the first block a record touches names it (relfilenode, this database's relations only).
  const byRelation = await client.query<{ relation: string; records: string; bytes: string }>(
    `with r as (
       select (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid as node, record_length
       from pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn()) where block_ref is not null
     )
     select coalesce(c.relnamespace::regnamespace::text || '.' || c.relname, 'relfilenode ' || r.node::text) as relation, count(*)::text as records, sum(r.record_length)::text as bytes
     from r left join pg_class c on c.relfilenode = r.node group by 1 order by sum(r.record_length) desc limit 16`,
    [startLsn],
  );
  console.log(`   WAL by relation (per request):`);
  for (const row of byRelation.rows) {
    console.log(`     ${(Number(row.records) / Math.max(1, requests)).toFixed(2).padStart(6)} records  ${(Number(row.bytes) / Math.max(1, requests)).toFixed(0).padStart(6)} B  ${row.relation}`);
  }
}

async function main(): Promise<void> {
  const rootFlag = process.argv.indexOf('--root');
  const root = rootFlag >= 0 ? (process.argv[rootFlag + 1] ?? '') : THIS_CHECKOUT;
  const rate = arg('rate', 100);
  const seconds = arg('seconds', 15);
  // Steady state: the first `warmup` seconds of each variant (JIT, pools, caches) are not measured.
  const warmup = arg('warmup', 3);
  const misses = arg('misses', 40);
  const profileFlag = process.argv.indexOf('--cpu-prof-dir');
  const profileDir = profileFlag >= 0 ? process.argv[profileFlag + 1] : undefined;
  const pgStatements = process.argv.includes('--pg-statements');
  // Room for the whole offered load, twice: every run the bench starts may be in flight at once.
  const headroom = 2 * (misses + rate * (seconds + warmup));
  const benchAdmission = {
    tiers: { free: { ratePerSecond: headroom, burst: headroom, maxInFlight: headroom } },
    maxInFlightTotal: headroom,
  };
  const bench = await startBenchPlatform({
    root,
    databaseName: 'rog_bench',
    services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
    ...(profileDir === undefined ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] }),
    ...(pgStatements ? { postgresSettings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.track_planning': 'on' } } : {}),
    env: {
      // The video is a background run; keep it out of the measured path's CPU.
      OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { video_generation: 'skip' } }),
      OPENPAW_ADMISSION_JSON: JSON.stringify(benchAdmission),
    },
  });
  const { databaseUrl, submit } = bench;

  // Step times come from the coordinator's step log; the client ends before the database does.
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', (error) => console.error(`step-log client: ${error.message}`));
  await client.connect();
  try {
    if (pgStatements) await client.query('create extension if not exists pg_stat_statements; create extension if not exists pg_walinspect');
    // Miss path: new problems one at a time with the instant local model.
    const missLatencies: number[] = [];
    const missRuns: string[] = [];
    for (let i = 0; i < misses; i += 1) {
      const { ms, body } = await submit(`${i + 2}x + ${i} = ${3 * (i + 2) + i}`);
      if (body.result?.outcome !== 'new') throw new Error(`expected a new solution, got ${JSON.stringify(body)}`);
      missLatencies.push(ms);
      missRuns.push(body.run_id);
    }
    console.log(summary('miss path (new solve, local model), c=1', missLatencies, missLatencies.reduce((a, b) => a + b, 0) / 1000));
    const stepTimes = async (runIds: readonly string[]): Promise<void> => {
      const steps = await client.query<{ state: string; avg_ms: number; p99_ms: number; n: number }>(
        `with t as (
           select workflow_run_id, state_before as state,
                  extract(epoch from occurred_at - lag(occurred_at) over (partition by workflow_run_id order by id)) * 1000 as ms
           from coordinator.workflow_step_logs where workflow_run_id = any($1::uuid[]) and state_before is distinct from state_after)
         select state, avg(ms)::float8 as avg_ms, (percentile_cont(0.99) within group (order by ms))::float8 as p99_ms, count(*)::int as n
         from t where ms is not null and state <> 'INITIATED' group by state order by avg_ms desc`,
        [runIds],
      );
      for (const row of steps.rows) console.log(`   time in ${row.state.padEnd(20)} avg ${row.avg_ms.toFixed(1)} ms  p99 ${row.p99_ms.toFixed(1)} ms (n=${row.n})`);
    };
    await stepTimes(missRuns);

    // Hit path at a fixed arrival rate (open loop: latency includes queueing).
    const only = process.argv.indexOf('--only');
    const variants = (['identical re-submission (cached)', 'copy → new run → retrieval hit'] as const).filter(
      (variant) => only < 0 || variant.startsWith(process.argv[only + 1] === 'cached' ? 'identical' : 'copy'),
    );
    for (const variant of variants) {
      const latencies: number[] = [];
      const runIds: string[] = [];
      const pending: Promise<void>[] = [];
      // A failed request stops the variant; caught here, so the `finally` below still stops every
      // server (an unobserved rejection would end the process with NATS and PostgreSQL left running).
      let failure: { readonly error: unknown } | undefined;
      let started = performance.now();
      let measureStart = started;
      let walStart: string | undefined;
      let cpuBefore = cpuByProcess();
      let writesBefore = writesByProcess();
      const total = rate * (seconds + warmup);
      for (let i = 0; i < total && failure === undefined; i += 1) {
        if (i === rate * warmup) {
          await Promise.all(pending.splice(0));
          latencies.splice(0);
          runIds.splice(0);
          measureStart = performance.now();
          cpuBefore = cpuByProcess();
          writesBefore = writesByProcess();
          if (pgStatements) {
            await client.query('select pg_stat_statements_reset()');
            walStart = (await client.query<{ lsn: string }>('select pg_current_wal_flush_lsn()::text as lsn')).rows[0]?.lsn;
          }
          started = measureStart - (i * 1000) / rate;
        }
        const due = started + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const n = i % misses;
        const text = `${n + 2}x + ${n} = ${3 * (n + 2) + n}`;
        // The intent is part of the idempotency key: a different intent is a new run of the same
        // problem, which ingestion and retrieval must answer (a hit), while the same one is cached.
        const intent = variant === 'identical re-submission (cached)' ? 'solve' : `bench_${i}`;
        pending.push(
          submit(text, intent).then(({ ms, body }) => {
            if (body.result?.outcome !== 'hit' && body.result?.outcome !== 'new') throw new Error(JSON.stringify(body));
            if (variant !== 'identical re-submission (cached)' && body.result.outcome !== 'hit') throw new Error(`expected a hit: ${JSON.stringify(body)}`);
            latencies.push(ms);
            runIds.push(body.run_id);
          }).catch((error: unknown) => {
            failure ??= { error };
          }),
        );
      }
      await Promise.all(pending);
      if (failure !== undefined) throw failure.error;
      const cpu = cpuSince(cpuBefore);
      const writes = writesLine(writesBefore, latencies.length, 'request');
      console.log(summary(`hit path: ${variant} @${rate}/s`, latencies, (performance.now() - measureStart) / 1000));
      console.log(`   CPU meanwhile: ${cpuLine(cpu, latencies.length, 'request')}`);
      console.log(`   write system calls meanwhile: ${writes}`);
      if (variant !== 'identical re-submission (cached)') await stepTimes(runIds);
      if (pgStatements) await printCostliestStatements(client, latencies.length);
      if (walStart !== undefined) await printWalByRecord(client, walStart, latencies.length);
    }
  } finally {
    await client.end();
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
