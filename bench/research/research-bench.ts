/**
 * Research flow (spec 05) platform overhead, every service as its own process, local infra (fsync on).
 * Each run has 3 instant legs: `openai` and `anthropic` on local wire servers that answer at once, and
 * `local` (the extractive researcher); the synthesis is the local one. From the coordinator's step log:
 *
 *  - overhead per leg = (leg recorded completed) − (research started) − (the provider call's own latency):
 *    outbox → JetStream → the research lane's pickup → key, kept-reply check, started event → reply kept and
 *    published → the coordinator's apply. `research started` is the coordinator decision that sends the
 *    leg's command (a run's legs are all sent in the decision that starts it), so the clock starts when
 *    the leg could start; the gateway's admission and the StartRun's way to the coordinator come before
 *    it and are not counted. The subtracted call time is printed too, and the same figure with nothing
 *    subtracted (the call to an instant wire server is platform work too: the LLM port and its HTTP);
 *  - run time = research started → completed (3 legs, the matrix, the synthesis command and the share page).
 *
 * Phases: runs one at a time, then 50 concurrent runs (50 users, 150 legs at once), `--rounds` times
 * (fresh runs each round; percentiles over every round's legs). `--cpu-prof DIR` runs the services
 * with `node --cpu-prof` (profiles written to DIR when they stop; the figures are then not comparable).
 *
 *   npm run build && node dist/bench/research/research-bench.js [--sequential 20] [--concurrent 50] [--rounds 1] [--lane-concurrency N (default: the services')] [--poll-ms 50] [--idle-seconds 5] [--cpu-prof DIR]
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { ExecuteResearchLeg, ExecuteResearchLegs, STREAMS } from '@openpaw/contracts';
import { COMMAND_RECEIPTS_BUCKET } from '@openpaw/messaging';
import { createDatabase, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { startAnthropicWireServer, startOpenAiWireServer } from '@openpaw/testkit';
import { SignJWT } from 'jose';
import { cpuByProcess, cpuLine, cpuSince, writesByProcess, writesLine } from '../support/process-cpu.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const line = (label: string, values: number[]): string => {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return `${label.padEnd(40)} n=${String(sorted.length).padStart(4)}  mean=${mean.toFixed(1)} ms  p50=${pct(sorted, 50).toFixed(1)} ms  p95=${pct(sorted, 95).toFixed(1)} ms  p99=${pct(sorted, 99).toFixed(1)} ms  max=${(sorted.at(-1) ?? NaN).toFixed(1)} ms`;
};

const argText = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const REPORT = 'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C. Gas boilers convert at most 95 percent of the fuel energy into heat.';

async function main(): Promise<void> {
  const root = join(import.meta.dirname, '../../..');
  const sequential = arg('sequential', 20);
  const concurrent = arg('concurrent', 50);
  // Unset: the services' own defaults (the research lane sized from the providers' call limits).
  const laneConcurrency = process.argv.includes('--lane-concurrency') ? arg('lane-concurrency', 0) : undefined;
  const pollMs = arg('poll-ms', 50);
  const rounds = arg('rounds', 1);
  const profileDir = argText('cpu-prof');
  const openai = await startOpenAiWireServer(() => ({ text: `openai: ${REPORT}` }));
  const anthropic = await startAnthropicWireServer(() => ({ text: `anthropic: ${REPORT}` }));
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const databaseUrl = await createDatabase(postgres.adminUrl, 'research_bench');
  const platform = await startPlatformProcesses({
    root,
    natsUrl: nats.url,
    databaseUrl,
    services: ['coordinator', 'research', 'gateway'],
    env: {
      OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
      ...(profileDir === undefined ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` }),
    },
    serviceEnv: {
      // The bench measures the platform, not admission: one user's sequential runs are not rate-limited.
      gateway: { OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1_000 } } }) },
      research: {
        OPENAI_BASE_URL: openai.baseUrl,
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        OPENPAW_RESEARCH_POOL_SIZE: '16',
        // Every leg's receipt, quick ones too: the split of "started → picked up" below reads them.
        OPENPAW_COMMAND_RECEIPT_AFTER_MS: '0',
        ...(laneConcurrency === undefined
          ? {}
          : { OPENPAW_LANE_CONCURRENCY: `research=${laneConcurrency}`, OPENPAW_LLM_CONCURRENCY: `openai=${laneConcurrency},anthropic=${laneConcurrency},local=${laneConcurrency}` }),
      },
    },
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();

  const userClient = async (userId: string) => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer('openpaw')
      .setAudience('openpaw-api')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(platform.jwtSecret));
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${platform.gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    };
    for (const provider of ['openai', 'anthropic']) await call('PUT', `/research/keys/${provider}`, { apiKey: `sk-${provider}-${userId}-0123456789` });
    return Object.assign(call, { token });
  };

  /** Starts a research and waits until it completed; returns its id and the client-side time. */
  const research = async (call: Awaited<ReturnType<typeof userClient>>): Promise<{ id: string; ms: number }> => {
    const t = performance.now();
    const started = await call('POST', '/research', { prompt: 'How efficient are cold-climate heat pumps?', selectedLlms: ['openai', 'anthropic', 'local'], synthesisLlm: 'local', externalReports: [{ content: REPORT }] });
    // Under load the gateway may answer 503 `pending`: accepted, not yet in its projection (the id is in the message).
    const pending = started.status === 503 && started.body['error'] === 'pending' ? /research (\S+) was accepted/.exec(String(started.body['message']))?.[1] : undefined;
    if (started.status !== 202 && pending === undefined) throw new Error(`POST /research answered ${started.status}: ${JSON.stringify(started.body)}`);
    const id = pending ?? (started.body['id'] as string);
    // The run's event stream ends after its terminal state: one connection per run, not a poll every few ms
    // (50 clients polling every 20 ms kept the gateway the busiest process of the bench).
    const stream = await fetch(`${platform.gatewayUrl}/runs/${id}/events`, { headers: { authorization: `Bearer ${call.token}` } });
    await stream.text();
    for (;;) {
      const { status, body } = await call('GET', `/research/${id}`);
      if (status === 200 && (body['status'] === 'completed' || body['status'] === 'failed')) {
        if (body['status'] !== 'completed') throw new Error(`research ${id} failed: ${String(body['error'])}`);
        return { id, ms: performance.now() - t };
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  /**
   * Overheads of finished runs, from the coordinator's step log: per leg in all, and split at the
   * research service's pickup (the `startedAt` of ResearchLegStarted, recorded with the input).
   */
  const overheads = async (ids: readonly string[]): Promise<{ legs: number[]; calls: number[]; unsubtracted: number[]; toPickup: number[]; afterPickup: number[]; runs: number[] }> => {
    type Payload = { leg?: number; latency_ms?: number; input?: { data?: { legIndex?: number; startedAt?: string } } };
    const rows = await db.query<{ workflow_run_id: string; step_name: string; payload: Payload; at: number }>(
      `select workflow_run_id, step_name, payload, extract(epoch from occurred_at) * 1000 as at from coordinator.workflow_step_logs
        where workflow_run_id = any($1::uuid[]) and step_name in ('research_started', 'leg_started', 'leg_completed', 'research_completed')`,
      [ids],
    );
    const legs: number[] = [];
    const calls: number[] = [];
    const unsubtracted: number[] = [];
    const toPickup: number[] = [];
    const afterPickup: number[] = [];
    const runs: number[] = [];
    for (const id of ids) {
      const mine = rows.rows.filter((r) => r.workflow_run_id === id);
      const start = Number(mine.find((r) => r.step_name === 'research_started')?.at);
      const pickups = new Map<number, number>();
      for (const r of mine.filter((x) => x.step_name === 'leg_started')) {
        const data = r.payload.input?.data;
        if (data?.legIndex !== undefined && data.startedAt !== undefined) pickups.set(data.legIndex, Date.parse(data.startedAt));
      }
      for (const r of mine.filter((x) => x.step_name === 'leg_completed')) {
        const done = Number(r.at) - (r.payload.latency_ms ?? 0);
        legs.push(done - start);
        calls.push(r.payload.latency_ms ?? 0);
        unsubtracted.push(Number(r.at) - start);
        const pickup = pickups.get(r.payload.leg ?? -1);
        if (pickup !== undefined) {
          toPickup.push(pickup - start);
          afterPickup.push(done - pickup);
        }
      }
      const end = mine.find((r) => r.step_name === 'research_completed');
      if (end !== undefined) runs.push(Number(end.at) - start);
    }
    return { legs, calls, unsubtracted, toPickup, afterPickup, runs };
  };

  const nc = await connect({ servers: nats.url });
  const js = jetstream(nc);
  const receipts = await new Kvm(js).open(COMMAND_RECEIPTS_BUCKET);

  /**
   * Where "started → picked up" goes, per leg command: the coordinator's commit and relay (the
   * command's time in the stream), the wait in the research lane (stream → the lane hands it to a
   * handler, from the command receipt), the handler's start (receipt → ResearchLegStarted's startedAt).
   */
  const dispatchSplit = async (ids: readonly string[]): Promise<{ relay: number[]; lane: number[]; handlerStart: number[] }> => {
    const wanted = new Set(ids);
    const starts = await db.query<{ workflow_run_id: string; at: number }>(
      `select workflow_run_id, extract(epoch from occurred_at) * 1000 as at from coordinator.workflow_step_logs where workflow_run_id = any($1::uuid[]) and step_name = 'research_started'`,
      [ids],
    );
    const startOf = new Map(starts.rows.map((r) => [r.workflow_run_id, Number(r.at)]));
    const legStarted = await db.query<{ payload: { input?: { data?: { commandId?: string; startedAt?: string } } } }>(
      `select payload from coordinator.workflow_step_logs where workflow_run_id = any($1::uuid[]) and step_name = 'leg_started'`,
      [ids],
    );
    const startedAtOf = new Map<string, number>();
    for (const r of legStarted.rows) {
      const d = r.payload.input?.data;
      if (d?.commandId !== undefined && d.startedAt !== undefined) startedAtOf.set(d.commandId, Date.parse(d.startedAt));
    }
    const relay: number[] = [];
    const lane: number[] = [];
    const handlerStart: number[] = [];
    // Every command of the bench (nats-server 2.9 takes no filter on an ordered consumer): a few hundred.
    const reader = await js.consumers.get(STREAMS.commands.name);
    const info = await reader.info();
    let left = info.num_pending;
    if (left === 0) return { relay, lane, handlerStart };
    for await (const msg of await reader.consume()) {
      // One-item commands (before ADR 0025) and batches: each leg by its command id (a batch item's `itemId`).
      const command = msg.subject === ExecuteResearchLeg.subject || msg.subject === ExecuteResearchLegs.subject ? msg.json<{ id: string; data: { runId: string; items?: { itemId: string }[] } }>() : undefined;
      const start = command === undefined ? undefined : startOf.get(command.data.runId);
      if (command !== undefined && wanted.has(command.data.runId) && start !== undefined) {
        const published = msg.info.timestampNanos / 1e6;
        for (const legId of command.data.items?.map((item) => item.itemId) ?? [command.id]) {
          relay.push(published - start);
          const receipt = await receipts.get(legId);
          const pickedUp = receipt === null ? undefined : Date.parse(receipt.json<{ pickedUpAt: string }>().pickedUpAt);
          if (pickedUp !== undefined) lane.push(pickedUp - published);
          const startedAt = startedAtOf.get(legId);
          if (pickedUp !== undefined && startedAt !== undefined) handlerStart.push(startedAt - pickedUp);
        }
      }
      left -= 1;
      if (left === 0) break;
    }
    return { relay, lane, handlerStart };
  };

  try {
    const warm = await userClient('bench-warmup');
    for (let i = 0; i < 3; i++) await research(warm);

    const one = await userClient('bench-sequential');
    const sequentialRuns: { id: string; ms: number }[] = [];
    for (let i = 0; i < sequential; i++) sequentialRuns.push(await research(one));
    const seq = await overheads(sequentialRuns.map((r) => r.id));

    /** Reads of the gateway's run projection (index lookups by run id) and its writes: what the gateway asks of PostgreSQL. */
    const projectionStats = async (): Promise<{ reads: number; writes: number }> => {
      const rows = await db.query<{ reads: string; writes: string }>(
        `select coalesce(idx_scan, 0) + coalesce(seq_scan, 0) as reads, n_tup_ins + n_tup_upd as writes from pg_stat_user_tables where schemaname = 'gateway' and relname = 'run_projection'`,
      );
      return { reads: Number(rows.rows[0]?.reads ?? 0), writes: Number(rows.rows[0]?.writes ?? 0) };
    };
    /** Rows written and scans per table (all schemas): which service's tables a round writes and reads. */
    const tableStats = async (): Promise<Map<string, { writes: number; scans: number }>> => {
      const rows = await db.query<{ name: string; writes: string; scans: string }>(
        `select schemaname || '.' || relname as name, n_tup_ins + n_tup_upd + n_tup_del as writes, coalesce(idx_scan, 0) + coalesce(seq_scan, 0) as scans from pg_stat_user_tables`,
      );
      return new Map(rows.rows.map((r) => [r.name, { writes: Number(r.writes), scans: Number(r.scans) }]));
    };
    /** Transactions PostgreSQL committed in the bench's database (each a WAL flush with fsync on). */
    const commits = async (): Promise<number> => {
      const rows = await db.query<{ commits: string }>(`select xact_commit as commits from pg_stat_database where datname = current_database()`);
      return Number(rows.rows[0]?.commits ?? 0);
    };

    console.log(`research bench: 3 instant legs per run (openai + anthropic wire servers, local), local synthesis; research lane concurrency ${laneConcurrency ?? 'default (the providers\' call limits summed)'}`);
    console.log(`-- one run at a time (${sequential} runs)`);
    console.log(line('platform overhead per leg', seq.legs));
    console.log(line('  the call itself (subtracted above)', seq.calls));
    console.log(line('  dispatch → recorded, nothing subtracted', seq.unsubtracted));
    console.log(line('  of which: started → picked up', seq.toPickup));
    const seqSplit = await dispatchSplit(sequentialRuns.map((r) => r.id));
    console.log(line('    started → command in the stream', seqSplit.relay));
    console.log(line('    stream → handed to a handler', seqSplit.lane));
    console.log(line('    handed → leg started', seqSplit.handlerStart));
    console.log(line('  of which: picked up → recorded', seq.afterPickup));
    console.log(line('run: started → completed (coordinator)', seq.runs));
    console.log(line('run: POST → GET completed (client)', sequentialRuns.map((r) => r.ms)));

    // What the platform burns with nothing to do (pollers, sweepers, keep-alives): every round's CPU
    // per leg includes it for the round's wall time.
    const idleSeconds = arg('idle-seconds', 5);
    if (idleSeconds > 0) {
      const idleBefore = cpuByProcess();
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      console.log(`-- idle for ${idleSeconds} s, CPU per second: ${cpuLine(cpuSince(idleBefore, 0), idleSeconds, 's')}`);
    }

    const all = { legs: [] as number[], calls: [] as number[], unsubtracted: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      const clients = await Promise.all(Array.from({ length: concurrent }, (_, i) => userClient(`bench-user-${round}-${i}`)));
      const projectionBefore = await projectionStats();
      const tablesBefore = await tableStats();
      const commitsBefore = await commits();
      const cpuBefore = cpuByProcess();
      const writesBefore = writesByProcess();
      const t = performance.now();
      const concurrentRuns = await Promise.all(clients.map((call) => research(call)));
      const wall = performance.now() - t;
      const cpu = cpuSince(cpuBefore);
      const writes = writesLine(writesBefore, concurrent * 3, 'leg');
      const committed = (await commits()) - commitsBefore;
      // The statistics collector publishes with a small delay.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const projectionAfter = await projectionStats();
      const tablesAfter = await tableStats();
      const conc = await overheads(concurrentRuns.map((r) => r.id));
      const concSplit = await dispatchSplit(concurrentRuns.map((r) => r.id));
      all.legs.push(...conc.legs);
      all.calls.push(...conc.calls);
      all.unsubtracted.push(...conc.unsubtracted);
      const legCount = concurrent * 3;
      console.log(`-- round ${round}/${rounds}: ${concurrent} concurrent runs (${legCount} legs), wall ${wall.toFixed(0)} ms`);
      console.log(`CPU used meanwhile: ${cpuLine(cpu, legCount, 'leg')}`);
      console.log(`write system calls meanwhile: ${writes}`);
      console.log(`PostgreSQL commits meanwhile: ${committed} (${(committed / legCount).toFixed(1)} per leg; the gateway's, the coordinator's and the research service's)`);
      console.log(`gateway run projection meanwhile: ${projectionAfter.reads - projectionBefore.reads} reads, ${projectionAfter.writes - projectionBefore.writes} rows written`);
      const perRun = (n: number): string => (n / concurrent).toFixed(1);
      const tableLines = [...tablesAfter]
        .map(([name, after]) => ({ name, writes: after.writes - (tablesBefore.get(name)?.writes ?? 0), scans: after.scans - (tablesBefore.get(name)?.scans ?? 0) }))
        .filter((t) => t.writes + t.scans > 0)
        .sort((a, b) => b.writes + b.scans - (a.writes + a.scans));
      console.log(`rows written / scans per run, by table: ${tableLines.map((t) => `${t.name} ${perRun(t.writes)}/${perRun(t.scans)}`).join(', ')}`);
      console.log(line('platform overhead per leg', conc.legs));
      console.log(line('  the call itself (subtracted above)', conc.calls));
      console.log(line('  dispatch → recorded, nothing subtracted', conc.unsubtracted));
      console.log(line('  of which: started → picked up', conc.toPickup));
      console.log(line('    started → command in the stream', concSplit.relay));
      console.log(line('    stream → handed to a handler', concSplit.lane));
      console.log(line('    handed → leg started', concSplit.handlerStart));
      console.log(line('  of which: picked up → recorded', conc.afterPickup));
      console.log(line('run: started → completed (coordinator)', conc.runs));
      console.log(line('run: POST → GET completed (client)', concurrentRuns.map((r) => r.ms)));
    }
    if (rounds > 1) {
      console.log(`-- all ${rounds} rounds`);
      console.log(line('platform overhead per leg', all.legs));
      console.log(line('  dispatch → recorded, nothing subtracted', all.unsubtracted));
    }
    const p99 = pct([...all.legs].sort((a, b) => a - b), 99);
    console.log(`p99 overhead per leg at ${concurrent} concurrent runs: ${p99.toFixed(1)} ms (target ≤ 100 ms): ${p99 <= 100 ? 'met' : 'NOT met'}`);
  } finally {
    await nc.close();
    await db.end();
    await platform.stop();
    await nats.dispose();
    await postgres.dispose();
    await openai.close();
    await anthropic.close();
  }
}

await main();
