/**
 * Visual degrees over the gateway, every service its own process (coordinator, visual-search, gateway),
 * local infra (PostgreSQL with fsync), the local world (seed 7): 3-hop pairs submitted with
 * `POST /visual-degrees`, each followed on its SSE stream until `final` / `no_path`.
 *
 *  - runs/minute: runs started `--concurrency` at a time for `--runs` runs, wall time to the last end;
 *  - verification → SSE latency: from the `EdgeVerified` reply's envelope time (visual-search, when the
 *    edge was verified) to the `evidence` event's arrival at the SSE client, p50 / p99.
 *
 *   npm run build && node dist/bench/visual/visual-degrees-runs.js [--runs <3-hop pairs>] [--concurrency 4] [--meet-in-the-middle] [--seed 7] [--cold-cache]
 *
 * The evidence cache is shared across runs (spec 03 "beyond the spec"): once `--runs` exceeds the
 * number of 3-hop pairs, later runs meet edges an earlier run verified and cost no recognition.
 * `--cold-cache` empties it before every run and runs one at a time, so no run profits from another.
 * `--seed` picks another generated world (7 is the one the product was developed against; report the
 * others as held out); the world's hash is printed so a figure names the world it was measured on.
 */
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { EdgeVerified, type Envelope, type MessageData } from '@openpaw/contracts';
import { generateVisualWorld, pairsAtDistance, visualWorldHash } from '@openpaw/providers';
import { KV_BUCKETS, kvStreamName } from '@openpaw/messaging';
import { createDatabase, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { SignJWT } from 'jose';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const median = (values: readonly number[]): number => pct([...values].sort((a, b) => a - b), 50);

interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
  readonly receivedAt: number;
}

/** Reads a run's SSE stream to its end, stamping each event with its arrival time. */
async function follow(url: string, token: string): Promise<SseEvent[]> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: AbortSignal.timeout(300_000) });
  if (response.body === null || response.status !== 200) throw new Error(`${url}: ${response.status}`);
  const events: SseEvent[] = [];
  let buffer = '';
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    const receivedAt = Date.now();
    buffer += chunk;
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
      const fields = new Map(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()] as const));
      const data = fields.get('data');
      if (data !== undefined) events.push({ event: fields.get('event') ?? 'message', data: JSON.parse(data) as Record<string, unknown>, receivedAt });
    }
  }
  return events;
}

async function main(): Promise<void> {
  const coldCache = process.argv.includes('--cold-cache');
  const concurrency = coldCache ? 1 : arg('concurrency', 4);
  const worldSeed = arg('seed', 7);
  const strategy = process.argv.includes('--meet-in-the-middle') ? 'meet_in_the_middle' : 'one_sided';
  const root = join(import.meta.dirname, '../../..');
  const world = generateVisualWorld({ seed: worldSeed });
  const worldHash = visualWorldHash(world);
  const pairs = pairsAtDistance(world, 3).map(([a, b]) => ({ from: world.people[a]?.name ?? '', to: world.people[b]?.name ?? '' }));
  // Every 3-hop pair once by default; more runs repeat pairs (the shared cache then answers them).
  const runs = arg('runs', pairs.length);
  const nats = await startNatsServer();
  // Servers started before a failed start are stopped before the error ends the bench (none is left behind).
  const postgres = await startPostgresServer({ fsync: true }).catch(async (error: unknown) => {
    await nats.dispose();
    throw error;
  });
  const platform = await (async () =>
    startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await createDatabase(postgres.adminUrl, 'visual_bench'),
      services: ['coordinator', 'visual-search', 'gateway'],
      serviceEnv: { 'visual-search': { OPENPAW_VISUAL_WORLD_SEED: String(worldSeed) } },
    }))().catch(async (error: unknown) => {
    await Promise.all([nats.dispose(), postgres.dispose()]);
    throw error;
  });
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setIssuer('openpaw')
    .setAudience('openpaw-api')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(platform.jwtSecret));
  // When each edge was verified, by run and pair: the reply's envelope time.
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  const verifiedAt = new Map<string, number>();
  const subscription = nc.subscribe(EdgeVerified.subject, {
    callback: (_error, message) => {
      const envelope = message.json<Envelope<MessageData<typeof EdgeVerified>>>();
      verifiedAt.set(`${envelope.data.runId}|${envelope.data.edge.from.name}|${envelope.data.edge.to.name}`, Date.parse(envelope.time));
    },
  });
  await nc.flush();

  try {
    const latencies: number[] = [];
    const outcomes = new Map<string, number>();
    const hops: number[] = [];
    const recognitionsPerRun: number[] = [];
    const searchesPerRun: number[] = [];
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      for (let i = next++; i < runs; i = next++) {
        const pair = pairs[i % pairs.length] ?? pairs[0];
        if (coldCache) await jsm.streams.purge(kvStreamName(KV_BUCKETS.visualEvidenceCache.name));
        const response = await fetch(`${platform.gatewayUrl}/visual-degrees`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `bench-${i}` },
          body: JSON.stringify({ ...pair, options: { strategy } }),
        });
        const { runId } = (await response.json()) as { runId: string };
        const events = await follow(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, token);
        const last = events.at(-1);
        const outcome = last?.event === 'no_path' ? `no_path:${String(last.data['reason'])}` : (last?.event ?? 'none');
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (last?.event === 'final') hops.push((last.data['path'] as string[]).length - 1);
        const run = (await (await fetch(`${platform.gatewayUrl}/visual-degrees/${runId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { view: { used: { recognitionCalls: number; searchCalls: number } } };
        recognitionsPerRun.push(run.view.used.recognitionCalls);
        searchesPerRun.push(run.view.used.searchCalls);
        for (const evidence of events.filter((e) => e.event === 'evidence')) {
          const at = verifiedAt.get(`${runId}|${String(evidence.data['from'])}|${String(evidence.data['to'])}`);
          if (at !== undefined) latencies.push(evidence.receivedAt - at);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
    const recognitions = sum(recognitionsPerRun);
    const searches = sum(searchesPerRun);
    console.log(
      `visual degrees, local world seed ${worldSeed} (world ${worldHash}): ${runs} runs over ${pairs.length} 3-hop pairs, ${concurrency} at a time, ${strategy}, evidence cache ${coldCache ? 'emptied before every run' : 'shared across runs'}`,
    );
    console.log(`  outcomes: ${[...outcomes].map(([k, v]) => `${k}=${v}`).join(' ')}; hops of found chains: mean ${(hops.reduce((a, b) => a + b, 0) / Math.max(1, hops.length)).toFixed(2)}`);
    console.log(`  recognition calls, all runs / chains found: ${(recognitions / Math.max(1, hops.length)).toFixed(1)}; search calls: ${(searches / Math.max(1, hops.length)).toFixed(1)}`);
    console.log(`  per run (median): ${median(searchesPerRun)} searches, ${median(recognitionsPerRun)} recognitions`);
    console.log(`  ${(runs / (seconds / 60)).toFixed(1)} runs/min (${seconds.toFixed(1)} s)`);
    console.log(`  verification → SSE: n=${latencies.length} p50=${pct(latencies, 50)} ms p90=${pct(latencies, 90)} ms p99=${pct(latencies, 99)} ms max=${latencies.at(-1) ?? NaN} ms`);
  } finally {
    subscription.unsubscribe();
    await nc.close();
    await platform.stop();
    await Promise.all([nats.dispose(), postgres.dispose()]);
  }
}

await main();
