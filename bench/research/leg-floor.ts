/**
 * The floor under the research bench's "overhead per leg": what the fixed architecture's minimum per
 * leg costs on this machine, with none of OpenPaw's code in the way.
 *
 * The architecture (ARCHITECTURE.md) fixes the hops a leg needs: the coordinator's decision commits the
 * run and its leg commands to PostgreSQL (outbox) and relays them to JetStream; the research service
 * takes a command from its durable consumer, keeps its reply in PostgreSQL (so a redelivery never calls
 * the model twice), publishes the result and acks; the coordinator takes the results, applies them in
 * one transaction per batch (as its batch consumer does) and publishes the run's change (what the gateway's SSE shows per leg). This bench does
 * exactly those statements and messages with the plain `pg` and nats.js clients: no zod, no spans, no
 * NestJS, no model call, no per-leg "started" event, no gateway. Two processes (a "coordinator" and a
 * forked "research" worker), nats-server and PostgreSQL (fsync on), as in the real bench.
 *
 * Overhead per leg = (result applied, committed) − (the run's decision committed), measured the same
 * way as `research-bench.ts`. If this floor already misses a target at some concurrency, no tuning of
 * the services' code can meet it on this machine.
 *
 *   npm run build && node dist/bench/research/leg-floor.js [--runs 50] [--legs 3] [--rounds 3] [--worker-concurrency 36] [--coordinator-concurrency 8] [--coordinator-batch 256] [--pool 16]
 */
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createDatabase, startNatsServer, startPostgresServer } from '@openpaw/testing';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const line = (label: string, values: readonly number[]): string => {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return `${label.padEnd(34)} n=${String(sorted.length).padStart(4)}  mean=${mean.toFixed(1)} ms  p50=${pct(sorted, 50).toFixed(1)} ms  p99=${pct(sorted, 99).toFixed(1)} ms  max=${(sorted.at(-1) ?? NaN).toFixed(1)} ms`;
};

/** CPU seconds so far of this process and its descendants (the worker, nats-server, PostgreSQL), from /proc. */
function cpuOfTree(): number {
  const procs = new Map<number, { parent: number; cpu: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(entry), { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // exited meanwhile
    }
  }
  let total = 0;
  for (const [pid, p] of procs) {
    for (let q = pid, hops = 0; q > 1 && hops < 10; hops += 1) {
      if (q === process.pid) {
        total += p.cpu;
        break;
      }
      q = procs.get(q)?.parent ?? 0;
    }
  }
  return total;
}

const STREAM = 'floor';
const COMMANDS = 'floor.cmd.leg';
const RESULTS = 'floor.evt.leg';
const CHANGES = 'floor.evt.run';

/** Pulls from a durable consumer forever, `concurrency` handlers at once; acks after the handler. */
async function serve(js: JetStreamClient, durable: string, concurrency: number, handle: (msg: JsMsg) => Promise<void>): Promise<void> {
  const consumer = await js.consumers.get(STREAM, durable);
  const messages = await consumer.consume({ max_messages: concurrency * 2 });
  let running = 0;
  const waiting: Array<() => void> = [];
  for await (const msg of messages) {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    void handle(msg)
      .then(() => msg.ack(), () => msg.nak())
      .finally(() => {
        running -= 1;
        waiting.shift()?.();
      });
  }
}

/** The research service's minimum per leg: keep the reply (idempotency), publish the result, ack. */
async function worker(natsUrl: string, databaseUrl: string, concurrency: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  process.send?.('ready');
  await serve(js, 'research', concurrency, async (msg) => {
    const command = msg.json<{ id: string; runId: string; leg: number }>();
    const reply = { runId: command.runId, leg: command.leg, text: 'an instant answer' };
    await pool.query({
      name: 'keep',
      text: 'insert into kept_replies (command_id, reply) values ($1, $2) on conflict (command_id) do nothing',
      values: [command.id, JSON.stringify(reply)],
    });
    await js.publish(RESULTS, JSON.stringify(reply), { msgID: `result-${command.id}` });
  });
}

async function main(): Promise<void> {
  const runs = arg('runs', 50);
  const legs = arg('legs', 3);
  const rounds = arg('rounds', 3);
  const workerConcurrency = arg('worker-concurrency', 36);
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const databaseUrl = await createDatabase(postgres.adminUrl, 'leg_floor');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: arg('pool', 16) });
  await pool.query(`create table runs (id uuid primary key, done int not null default 0, version int not null default 0, decided_at timestamptz)`);
  await pool.query(`create table outbox (id uuid primary key, subject text not null, body jsonb not null, published boolean not null default false)`);
  await pool.query(`create table step_log (run_id uuid not null, step text not null, at timestamptz not null default clock_timestamp())`);
  await pool.query(`create table kept_replies (command_id uuid primary key, reply jsonb not null)`);
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: ['floor.>'] });
  for (const [durable, subject] of [['research', COMMANDS], ['coordinator', RESULTS]] as const) {
    await jsm.consumers.add(STREAM, { durable_name: durable, filter_subject: subject, ack_policy: AckPolicy.Explicit });
  }
  const js = jetstream(nc);

  const child = fork(import.meta.filename, ['--worker', nats.url, databaseUrl, String(workerConcurrency)]);
  await new Promise<void>((resolve) => child.once('message', () => resolve()));

  /** Per leg: decided (run's decision committed) and applied (result committed), ms since epoch. */
  const decidedAt = new Map<string, number>();
  const overheads: number[] = [];
  let applied = 0;
  let onApplied: (() => void) | undefined;

  // The coordinator's minimum per result, batched as the real coordinator's consumer is (every result
  // available now, up to 256, applied in one transaction), then the runs' changes published (from the
  // outbox, as the relay would; here straight after the commit).
  const applyResults = async (results: ReadonlyArray<{ runId: string; leg: number }>): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      // Runs locked in one order: two batches holding results of the same runs never deadlock.
      for (const result of [...results].sort((a, b) => a.runId.localeCompare(b.runId))) {
        await client.query({ name: 'lock', text: 'select version from runs where id = $1 for update', values: [result.runId] });
        await client.query({ name: 'apply', text: 'update runs set done = done + 1, version = version + 1 where id = $1', values: [result.runId] });
        await client.query({ name: 'log', text: `insert into step_log (run_id, step) values ($1, 'leg_completed')`, values: [result.runId] });
      }
      await client.query('commit');
    } finally {
      client.release();
    }
    const now = Date.now();
    for (const result of results) overheads.push(now - (decidedAt.get(result.runId) ?? NaN));
    await Promise.all(results.map((result) => js.publish(CHANGES, JSON.stringify({ runId: result.runId, leg: result.leg, state: 'processing' }))));
    applied += results.length;
    onApplied?.();
  };
  const coordinatorBatch = arg('coordinator-batch', 256);
  void (async () => {
    const consumer = await js.consumers.get(STREAM, 'coordinator');
    const held: JsMsg[] = [];
    let running = 0;
    const concurrency = arg('coordinator-concurrency', 8);
    const drain = (): void => {
      while (running < concurrency && held.length > 0) {
        const batch = held.splice(0, coordinatorBatch);
        running += 1;
        void applyResults(batch.map((msg) => msg.json<{ runId: string; leg: number }>()))
          .then(() => batch.forEach((msg) => msg.ack()), () => batch.forEach((msg) => msg.nak()))
          .finally(() => {
            running -= 1;
            drain();
          });
      }
    };
    let scheduled = false;
    for await (const msg of await consumer.consume({ max_messages: 512 })) {
      held.push(msg);
      if (!scheduled) {
        // Let the rest of this network read arrive first, so a batch takes everything available now.
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          drain();
        });
      }
    }
  })();

  console.log(`leg floor: ${runs} concurrent runs × ${legs} legs, worker concurrency ${workerConcurrency}, ${rounds} rounds (PostgreSQL fsync on)`);
  const all: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    overheads.length = 0;
    applied = 0;
    const cpuBefore = cpuOfTree();
    const started = performance.now();
    const allApplied = new Promise<void>((resolve) => (onApplied = () => applied === runs * legs && resolve()));
    // Each run's decision: one transaction with the run and its leg commands in the outbox, then the relay.
    await Promise.all(
      Array.from({ length: runs }, async () => {
        const runId = randomUUID();
        const commands = Array.from({ length: legs }, (_, leg) => ({ id: randomUUID(), runId, leg }));
        const client = await pool.connect();
        try {
          await client.query('begin');
          await client.query({ name: 'run', text: 'insert into runs (id, decided_at) values ($1, clock_timestamp())', values: [runId] });
          for (const command of commands) {
            await client.query({ name: 'outbox', text: 'insert into outbox (id, subject, body) values ($1, $2, $3)', values: [command.id, COMMANDS, JSON.stringify(command)] });
          }
          await client.query('commit');
        } finally {
          client.release();
        }
        decidedAt.set(runId, Date.now());
        await Promise.all(commands.map((command) => js.publish(COMMANDS, JSON.stringify(command), { msgID: command.id })));
        await pool.query({ name: 'relayed', text: 'update outbox set published = true where id = any($1::uuid[])', values: [commands.map((c) => c.id)] });
      }),
    );
    await allApplied;
    const wall = performance.now() - started;
    const cpu = cpuOfTree() - cpuBefore;
    all.push(...overheads);
    console.log(`-- round ${round}: wall ${wall.toFixed(0)} ms, CPU ${cpu.toFixed(2)} s (${((cpu * 1000) / (runs * legs)).toFixed(2)} ms per leg, all processes)`);
    console.log(line('overhead per leg (floor)', overheads));
  }
  console.log(`-- all rounds`);
  console.log(line('overhead per leg (floor)', all));
  child.kill();
  await nc.close();
  await pool.end();
  await nats.dispose();
  await postgres.dispose();
}

if (process.argv[2] === '--worker') {
  await worker(process.argv[3] as string, process.argv[4] as string, Number(process.argv[5]));
} else {
  await main();
}
