/**
 * Saga benchmark: a synthetic 3-step saga (three worker replies) over real local infra (nats-server
 * with JetStream, PostgreSQL with fsync on), coordinator in its own process, at concurrency 1 and 64.
 * Prints runs/s, p50/p99 end-to-end latency (StartRun published -> terminal RunStateChanged seen),
 * and the raw JetStream publish/consume rate of the same machine for scale.
 *
 * Last, the disk's commit floor: one-row PostgreSQL commits in sequence, and what four of them (a
 * 3-step run's coordinator commits, each before its command leaves) cost: c=1's latency floor here.
 *
 * With `--hops`, c=1 also prints where a run's time goes: every message of the run seen on the wire
 * (a core subscription to the run's subjects), and the median gap between consecutive ones.
 *
 *   npm run build && node dist/bench/saga/saga-bench.js [--runs1 300] [--runs64 6000] [--commits 300] [--hops]
 */
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { deterministicUuid, RunStateChangedV2, runIdFor, StartRun, type MessageData } from '@openpaw/contracts';
import { connectNats, JetStreamPublisher } from '@openpaw/messaging';
import { createDatabase, imageNodeOptions, nodeOptionsAfterImage, serviceNodeFlags, spawnManaged, startNatsServer, startPostgresServer, waitForOutput } from '@openpaw/testing';
import { startThreeStepWorker, threeStepSaga } from '@openpaw/testkit';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const root = join(import.meta.dirname, '../../..');
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const databaseUrl = await createDatabase(postgres.adminUrl, 'saga_bench');
  const coordinator = spawnManaged(process.execPath, [...(serviceNodeFlags(root).get('coordinator') ?? []), join(root, 'dist/apps/coordinator/src/testing/three-step-coordinator.js')], {
    // Run as the image runs the coordinator (its Node options, then the coordinator's Node flags), then whatever this shell adds.
    env: { ...process.env, NATS_URL: nats.url, DATABASE_URL: databaseUrl, NODE_OPTIONS: nodeOptionsAfterImage(imageNodeOptions(root), process.env['NODE_OPTIONS']) },
  });
  await waitForOutput(coordinator, 'coordinator ready');
  const nc = await connect({ servers: nats.url });
  const js = jetstream(nc);
  // The worker is a service: it connects the way services do (connectNats: no stack captured per
  // request). The bench's own connection (StartRun, the raw-publish yardstick) stays nats.js's default.
  const workerNc = await connectNats({ servers: nats.url, name: 'testworker' });
  const worker = await startThreeStepWorker(workerNc, jetstream(workerNc));
  const publisher = new JetStreamPublisher(js);

  const waiting = new Map<string, () => void>();
  // Every version of the run change (v1 and v2 both carry the run id and whether it ended): a
  // coordinator built before v2 (the baseline) publishes v1 only (ADR 0024).
  const sub = nc.subscribe(RunStateChangedV2.subject.replace(/\.v2$/, '.*'), {
    callback: (_err, msg) => {
      const data = (msg.json<{ data: Pick<MessageData<typeof RunStateChangedV2>, 'runId' | 'terminal'> }>()).data;
      if (data.terminal) waiting.get(data.runId)?.();
    },
  });

  const hops = process.argv.includes('--hops') ? traceHops(nc) : undefined;
  let sequence = 0;
  async function oneRun(label: string): Promise<number> {
    sequence += 1;
    const key = `${label}-${sequence}`;
    const runId = runIdFor(threeStepSaga.type, key);
    const done = new Promise<void>((resolve) => waiting.set(runId, resolve));
    const started = performance.now();
    await publisher.publish(StartRun, { runId, workflowType: threeStepSaga.type, idempotencyKey: key, userId: 'bench', input: { payload: 'x' } }, {
      id: deterministicUuid('start', key),
      source: '/bench',
      correlationId: runId,
    });
    await done;
    waiting.delete(runId);
    return performance.now() - started;
  }

  async function phase(concurrency: number, runs: number): Promise<void> {
    // Warm-up (JIT, connection pools) outside the measurement.
    await Promise.all(Array.from({ length: Math.min(concurrency, 16) }, () => oneRun('warm')));
    const latencies: number[] = [];
    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued < runs) {
          issued += 1;
          latencies.push(await oneRun(`c${concurrency}`));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    console.log(
      `saga 3-step  concurrency=${String(concurrency).padStart(2)}  runs=${runs}  ${(runs / seconds).toFixed(0).padStart(5)} runs/s  ` +
        `p50=${percentile(latencies, 50).toFixed(2)} ms  p99=${percentile(latencies, 99).toFixed(2)} ms`,
    );
  }

  await phase(1, arg('runs1', 300));
  hops?.print();
  await phase(64, arg('runs64', 6000));
  sub.unsubscribe();
  await worker.stop();
  await workerNc.close();

  // Raw JetStream on the same machine: async publish (pipelined PubAcks) and pull consumption.
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw'] });
  await jsm.consumers.add('BENCH_RAW', { durable_name: 'raw', ack_policy: AckPolicy.Explicit });
  const count = 50_000;
  const payload = new TextEncoder().encode(JSON.stringify({ specversion: '1.0', data: { x: 'y'.repeat(200) } }));
  let t = performance.now();
  const acks: Promise<unknown>[] = [];
  for (let i = 0; i < count; i += 1) {
    acks.push(js.publish('bench.raw', payload, { msgID: `m${i}` }));
    if (acks.length >= 1000) await Promise.all(acks.splice(0));
  }
  await Promise.all(acks);
  const publishRate = count / ((performance.now() - t) / 1000);
  const consumer = await js.consumers.get('BENCH_RAW', 'raw');
  t = performance.now();
  let consumed = 0;
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    m.ack();
    consumed += 1;
    if (consumed === count) break;
  }
  const consumeRate = count / ((performance.now() - t) / 1000);
  console.log(`raw JetStream  publish ${publishRate.toFixed(0)} msg/s (PubAck each)  consume+ack ${consumeRate.toFixed(0)} msg/s`);
  await printCommitFloor(databaseUrl, arg('commits', 300));

  await nc.close();
  await coordinator.stop();
  await Promise.all([nats.dispose(), postgres.dispose()]);
}

/**
 * Where c=1's time goes: the wire time of each message of a run (by its correlation id), in order,
 * and per consecutive pair of subjects the median gap. Stops recording when printed.
 */
function traceHops(nc: NatsConnection): { print(): void } {
  const seen = new Map<string, Array<{ subject: string; at: number }>>();
  const sub = nc.subscribe('>', {
    callback: (_err, msg) => {
      if (msg.subject.startsWith('$JS.') || msg.subject.startsWith('_INBOX.') || msg.subject.startsWith('$KV.')) return;
      const at = performance.now();
      let runId: string | undefined;
      try {
        runId = msg.json<{ correlationid?: string }>().correlationid;
      } catch {
        return;
      }
      if (runId === undefined) return;
      const list = seen.get(runId) ?? [];
      list.push({ subject: msg.subject, at });
      seen.set(runId, list);
    },
  });
  return {
    print(): void {
      sub.unsubscribe();
      const gaps = new Map<string, number[]>();
      for (const list of seen.values()) {
        for (let i = 1; i < list.length; i += 1) {
          const previous = list[i - 1];
          const current = list[i];
          if (previous === undefined || current === undefined) continue;
          const key = `${previous.subject} → ${current.subject}`;
          const values = gaps.get(key) ?? [];
          values.push(current.at - previous.at);
          gaps.set(key, values);
        }
      }
      console.log(`hops at c=1 (median gap between consecutive messages of a run, ${seen.size} runs):`);
      for (const [key, values] of gaps) {
        values.sort((a, b) => a - b);
        console.log(`  ${percentile(values, 50).toFixed(2).padStart(7)} ms  n=${String(values.length).padStart(4)}  ${key}`);
      }
    },
  };
}

/**
 * The disk's yardstick for c=1: one-row commits in sequence on the same PostgreSQL (fsync and
 * synchronous commit on, as the coordinator's). A 3-step run makes four coordinator commits one
 * after another (the start and each of the three replies; the bench's worker keeps no state), each
 * before its command is published (the outbox), so four commits are its latency floor on this machine.
 */
async function printCommitFloor(databaseUrl: string, commits: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('create table if not exists bench_commit_floor (id serial primary key, at timestamptz not null default now())');
  const latencies: number[] = [];
  for (let i = 0; i < commits; i += 1) {
    const t = performance.now();
    await client.query('insert into bench_commit_floor default values');
    latencies.push(performance.now() - t);
  }
  await client.end();
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  console.log(
    `commit floor   one-row commit in sequence (fsync on): p50=${p50.toFixed(2)} ms  p99=${percentile(latencies, 99).toFixed(2)} ms  ` +
      `→ a 3-step run's 4 commits in sequence: p50 ≥ ${(4 * p50).toFixed(1)} ms`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
