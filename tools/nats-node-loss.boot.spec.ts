import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  createDatabase,
  type NatsClusterHandle,
  type NodeStreamState,
  type PostgresServerHandle,
  type RunningPlatform,
  startNatsCluster,
  startPlatformProcesses,
  startPostgresServer,
} from '@openpaw/testing';
import { devToken, distinctProblem, driveProblem, type LlmWireServer, type ProblemOutcome, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import { GatewayClient } from '../apps/gateway/src/e2e/e2e-client.js';
import { repeatedCommands } from '../libs/testkit/src/load/command-copies.js';
import { collectPlatformFacts } from '../libs/testkit/src/load/platform-facts.js';
import { nodeLossScale } from './testing/node-loss-scale.js';

/**
 * Workflows through the loss of a nats-server node (deploy/README.md, "The node-loss test"): the
 * retrieve-or-generate and visual-degrees services from the build on a 3-node JetStream cluster on
 * loopback, with the streams and KV buckets at R3 as the manifests provision them. While problems are
 * submitted and visual-degrees runs walk the local world (their per-run memory in a KV bucket), the
 * node that leads OPENPAW_COMMANDS is SIGKILLed by its process id and started again a few seconds
 * later; then the node leading it next is lost for good. Every run must SUCCEED; duplicates are counted
 * where side effects land: model calls at the OpenAI wire server (one per problem) and asset versions
 * in PostgreSQL; the commands stream holds each command once. The restarted node must then hold every
 * stream as its leader does. (Visual degrees has no side effect to count here: the local world answers
 * its searches and recognitions in process.)
 */
const root = join(import.meta.dirname, '..');
/** 1 in CI; the longer variant multiplies the runs and the time allowed (`OPENPAW_NODE_LOSS_SCALE`). */
const SCALE = nodeLossScale();
const PROBLEMS = 30 * SCALE;
const RATE_PER_SECOND = 5;
/** The node is killed once this many problems were submitted (a third in: runs in every state). */
const KILL_AFTER = 10 * SCALE;
const DOWN_MS = 5_000;
const ELECTION_WITHIN_MS = 30_000;
/** Visual-degrees runs started just before each loss (each walks the local world's 3-hop pair). */
const VISUAL_RUNS = 3 * SCALE;
/** Problems submitted after the node is lost for good. */
const PROBLEMS_AFTER_LOSS = 10 * SCALE;

/** `Solve 3x + 4 = 31` → the equation's key and its root, read back from the solve prompt. */
function equationIn(prompt: string): { key: string; x: number } | undefined {
  const match = /(\d+)\s*x\s*\+\s*(\d+)\s*=\s*(\d+)/.exec(prompt);
  if (match === null) return undefined;
  const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return { key: `${a}x+${b}=${c}`, x: (c - b) / a };
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A visual-degrees run between the local world's 3-hop pair (from visual-search's start line), driven as
 * a client does (like `driveProblem`): the start is retried on a 5xx or a gateway out of reach with the
 * same Idempotency-Key, and the run is polled (a 404 while its view is not yet projected is polled
 * again) until it ends. Its final state, or how it was left.
 */
async function visualDegreesRun(platform: RunningPlatform, user: string, timeoutMs: number): Promise<string> {
  const line = platform
    .logs('visual-search')
    .split('\n')
    .find((l) => l.includes('localWorldDemo'));
  const pair = (JSON.parse(line ?? '{}') as { localWorldDemo?: { threeHop: { from: string; to: string } } }).localWorldDemo?.threeHop;
  if (pair === undefined) throw new Error('visual-search logged no local world demo pair');
  const client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, user);
  const deadline = Date.now() + timeoutMs;
  const headers = { 'content-type': 'application/json', 'idempotency-key': `${user}-walk` };
  let runId: string | undefined;
  let last = 'never started';
  while (Date.now() < deadline) {
    if (runId === undefined) {
      const started = await client.request('/visual-degrees', { method: 'POST', headers, body: JSON.stringify(pair) }).catch(() => undefined);
      if (started?.status === 202) runId = ((await started.json()) as { runId: string }).runId;
      else {
        last = started === undefined ? 'gateway out of reach' : `start answered ${started.status}: ${(await started.text()).slice(0, 300)}`;
        // Only "not now" may be retried: the bus not answering (a 503, never a 500) or admission's 429, both with Retry-After.
        if (started !== undefined && started.status !== 503 && started.status !== 429) return last;
        await delay(Number(started?.headers.get('retry-after') ?? 0) * 1000);
      }
    } else {
      const run = await client.run(runId).catch(() => undefined);
      if (run?.terminal === true) return run.state;
      last = run === undefined ? 'not visible' : `still ${run.state}`;
    }
    await delay(250);
  }
  return `unfinished (${last})`;
}

describe('workflows through the loss of nats-server nodes (3 nodes, R3): the commands leader killed and restarted, then one lost for good', () => {
  let cluster: NatsClusterHandle;
  let postgres: PostgresServerHandle;
  let model: LlmWireServer;
  let platform: RunningPlatform;
  let databaseUrl: string;

  beforeAll(async () => {
    [cluster, postgres] = await Promise.all([startNatsCluster(3), startPostgresServer({ fsync: false })]);
    databaseUrl = await createDatabase(postgres.adminUrl, 'openpaw_node_loss');
    // The tutor model answers each equation's solve prompt with its root (the maths engine checks it).
    model = await startOpenAiWireServer((request): WireAnswer => {
      const equation = equationIn(request.user);
      if (!JSON.stringify(request.body).includes('can_solve') || equation === undefined) return { status: 400, message: 'this model only answers solve prompts for ax + b = c' };
      return { text: JSON.stringify({ can_solve: true, reason: null, steps: [{ title: 'Isolate x', detail: `\\(x = ${equation.x}\\)` }], final_answer: `\\(x = ${equation.x}\\)` }) };
    });
    const llm = { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-node-loss', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    platform = await startPlatformProcesses({
      root,
      // Every service knows every node, as the manifests' NATS URL (a Service over the StatefulSet) gives it.
      natsUrl: cluster.urls.join(','),
      databaseUrl,
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'visual-search', 'gateway'],
      env: { OPENPAW_STREAM_REPLICAS: '3' },
      serviceEnv: {
        solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' },
        // No videos: their rendering is not what this test is about and would take the machine's CPU.
        coordinator: { ...llm, OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { video_generation: 'skip' } }) },
        // Its start line names the local world's demo pairs (info level).
        'visual-search': { LOG_LEVEL: 'info' },
      },
    });
  }, 240_000);

  afterAll(async () => {
    await platform?.stop();
    await model?.close();
    await Promise.all([cluster?.dispose(), postgres?.dispose()]);
  });

  /**
   * Duplicates counted where side effects land: exactly one model call per equation among `requests`
   * (`problems` distinct ones), no two asset versions of one solution and none of a run that did not
   * succeed, and OPENPAW_COMMANDS holding each command once but for the coordinator's logged re-sends
   * (a publish retried across an election was de-duplicated; `repeatedCommands`); read through a node
   * other than `down`.
   */
  async function expectEachSideEffectOnce(requests: readonly { readonly user: string }[], problems: number, down: string): Promise<void> {
    const callsPerEquation = new Map<string, number>();
    for (const request of requests) {
      const key = equationIn(request.user)?.key ?? `unrecognised: ${request.user.slice(0, 60)}`;
      callsPerEquation.set(key, (callsPerEquation.get(key) ?? 0) + 1);
    }
    expect([...callsPerEquation.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(callsPerEquation.size).toBe(problems);
    const facts = await collectPlatformFacts(databaseUrl, cluster.urls.find((_, i) => cluster.names[i] !== down) ?? '');
    expect({ duplicateAssetVersions: facts.duplicateAssetVersions, orphanedAssetVersions: facts.orphanedAssetVersions }).toEqual({ duplicateAssetVersions: 0, orphanedAssetVersions: 0 });
    const repeated = await repeatedCommands(facts.commands, databaseUrl);
    if (repeated.length > 0) console.log(`commands stored more than once: ${JSON.stringify(repeated)}`);
    expect(repeated.filter((r) => r.unexplained > 0)).toEqual([]);
  }

  it('provisions every stream and KV bucket at R3', async () => {
    const nc = await connect({ servers: [...cluster.urls] });
    try {
      const jsm = await jetstreamManager(nc);
      const replicas: Record<string, number> = {};
      for await (const stream of jsm.streams.list()) replicas[stream.config.name] = stream.config.num_replicas;
      expect(Object.keys(replicas)).toEqual(expect.arrayContaining(['OPENPAW_COMMANDS', 'OPENPAW_EVENTS', 'OPENPAW_DLQ']));
      expect(Object.keys(replicas).some((name) => name.startsWith('KV_'))).toBe(true);
      expect(Object.entries(replicas).filter(([, n]) => n !== 3)).toEqual([]);
    } finally {
      await nc.close();
    }
  });

  it('every run SUCCEEDS through a SIGKILL of the commands leader, nothing duplicated, and the node catches up when it returns', async () => {
    const leaderOf = async (stream: string, askNode: string): Promise<string> => (await cluster.streamsOn(askNode))[stream]?.leader ?? '';
    const victim = await leaderOf('OPENPAW_COMMANDS', cluster.names[0] ?? 'n0');
    expect(cluster.names).toContain(victim);
    const survivor = cluster.names.find((node) => node !== victim) ?? '';
    const victimPid = cluster.pidOf(victim);

    // A user per problem: the per-user in-flight limit is admission's business, not this test's.
    const tokens = await Promise.all(Array.from({ length: PROBLEMS }, (_, i) => devToken(platform.jwtSecret, `node-loss-user-${i}`)));
    const deadline = Date.now() + 120_000;
    const salt = Date.now() % 1000;
    const problems = Array.from({ length: PROBLEMS }, (_, i) => distinctProblem(i, salt));
    const drives: Promise<ProblemOutcome>[] = [];
    const visuals: Promise<string>[] = [];
    let outage: Promise<{ newLeader: string; electedMs: number; downMs: number }> | undefined;
    let ended = 0;
    let inFlightAtKill = 0;
    const begun = Date.now();
    for (const [i, text] of problems.entries()) {
      const due = begun + (i * 1000) / RATE_PER_SECOND;
      if (due > Date.now()) await delay(due - Date.now());
      drives.push(
        driveProblem(() => platform.gatewayUrl, tokens[i] ?? '', text, deadline).then((outcome) => {
          ended += 1;
          return outcome;
        }),
      );
      if (i + 1 === KILL_AFTER) {
        for (let v = 0; v < VISUAL_RUNS; v += 1) visuals.push(visualDegreesRun(platform, `node-loss-visual-${v}`, 120_000 * SCALE).catch((error: unknown) => String(error)));
        outage = (async () => {
          const killedAt = Date.now();
          inFlightAtKill = KILL_AFTER - ended;
          await cluster.kill(victim);
          // While it is down the survivors elect a new leader for the commands stream (it stays down
          // at least DOWN_MS, and until that election is seen or ELECTION_WITHIN_MS has passed).
          let newLeader = '';
          let electedMs = -1;
          while (Date.now() - killedAt < DOWN_MS || (newLeader === '' && Date.now() - killedAt < ELECTION_WITHIN_MS)) {
            const seen = await leaderOf('OPENPAW_COMMANDS', survivor).catch(() => '');
            if (newLeader === '' && seen !== '' && seen !== victim) [newLeader, electedMs] = [seen, Date.now() - killedAt];
            await delay(250);
          }
          await cluster.restart(victim);
          return { newLeader, electedMs, downMs: Date.now() - killedAt };
        })();
      }
    }
    const outcomes = await Promise.all(drives);
    const { newLeader, electedMs, downMs } = (await outage) ?? { newLeader: '', electedMs: -1, downMs: 0 };
    console.log(`node loss: ${victim} (pid ${victimPid}) SIGKILLed after ${KILL_AFTER} of ${PROBLEMS} submissions (${inFlightAtKill} of them in flight), down ${downMs} ms; commands leader meanwhile ${newLeader === '' ? 'none' : newLeader} (seen ${electedMs} ms after the kill); every run ended ${((Date.now() - begun) / 1000).toFixed(1)} s after the first submission`);

    // Every submission ended SUCCEEDED (none refused, failed or left unfinished).
    const notSucceeded = outcomes.filter((o) => o.kind !== 'ended' || o.state !== 'SUCCEEDED').map((o) => (o.kind === 'ended' ? `${o.state} ${o.errorCode ?? ''}` : o.kind === 'rejected' ? `rejected ${o.reason ?? ''}` : `unfinished in ${o.lastState ?? 'no state'}`));
    if (notSucceeded.length > 0) console.log(`model requests: ${model.requests.map((r) => r.user.slice(0, 80)).join(' | ')}\n${platform.logs('solve').slice(-3000)}`);
    expect(notSucceeded).toEqual([]);
    // Visual degrees through the same loss: its per-run memory is an R3 bucket, so no run waits for the node.
    expect(await Promise.all(visuals)).toEqual(Array.from({ length: VISUAL_RUNS }, () => 'SUCCEEDED'));
    expect(victimPid).toBeDefined();
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(cluster.names.filter((node) => node !== victim)).toContain(newLeader);

    // Side effects, counted where they land: one model call per problem, one solution version each, each command stored once.
    await expectEachSideEffectOnce(model.requests, PROBLEMS, victim);

    // The restarted node catches up: it stores every stream as the stream's leader does.
    const since = Date.now();
    const differences = await cluster.catchUp(victim, 30_000);
    expect(differences).toEqual([]);
    console.log(`node loss: ${victim} caught up on every stream ${Date.now() - since} ms after the runs ended`);
  }, 240_000 * SCALE);

  it('a second scenario: the node leading the commands stream is lost for good; runs of both workflows complete on the two survivors, nothing duplicated', async () => {
    const leaderNow = async (): Promise<string> => {
      for (const node of cluster.names) {
        const streams: Readonly<Record<string, NodeStreamState>> = cluster.pidOf(node) === undefined ? {} : await cluster.streamsOn(node).catch(() => ({}));
        const leader = streams['OPENPAW_COMMANDS']?.leader ?? '';
        if (leader !== '') return leader;
      }
      return '';
    };
    const lost = await leaderNow();
    expect(cluster.names).toContain(lost);
    const requestsBefore = model.requests.length;
    const tokens = await Promise.all(Array.from({ length: PROBLEMS_AFTER_LOSS }, (_, i) => devToken(platform.jwtSecret, `node-lost-user-${i}`)));
    const salt = 1000 + (Date.now() % 1000);
    const problems = Array.from({ length: PROBLEMS_AFTER_LOSS }, (_, i) => distinctProblem(i, salt));
    const deadline = Date.now() + 120_000;
    const begun = Date.now();
    // Half submitted, the visual runs started, then the node goes and never returns.
    const drives: Promise<ProblemOutcome>[] = [];
    const visuals: Promise<string>[] = [];
    for (const [i, text] of problems.entries()) {
      if (i === PROBLEMS_AFTER_LOSS / 2) {
        for (let v = 0; v < VISUAL_RUNS; v += 1) visuals.push(visualDegreesRun(platform, `node-lost-visual-${v}`, 120_000 * SCALE).catch((error: unknown) => String(error)));
        await cluster.kill(lost);
      }
      drives.push(driveProblem(() => platform.gatewayUrl, tokens[i] ?? '', text, deadline));
      await delay(1000 / RATE_PER_SECOND);
    }
    const outcomes = await Promise.all(drives);
    const states = await Promise.all(visuals);
    console.log(`node lost: ${lost} SIGKILLed for good after ${PROBLEMS_AFTER_LOSS / 2} of ${PROBLEMS_AFTER_LOSS} submissions; every run ended ${((Date.now() - begun) / 1000).toFixed(1)} s after the first; commands leader now ${await leaderNow()}`);
    expect(outcomes.filter((o) => o.kind !== 'ended' || o.state !== 'SUCCEEDED').map((o) => (o.kind === 'ended' ? `${o.state} ${o.errorCode ?? ''}` : o.kind))).toEqual([]);
    expect(states).toEqual(Array.from({ length: VISUAL_RUNS }, () => 'SUCCEEDED'));
    expect(cluster.pidOf(lost)).toBeUndefined();
    await expectEachSideEffectOnce(model.requests.slice(requestsBefore), PROBLEMS_AFTER_LOSS, lost);
  }, 240_000 * SCALE);
});
