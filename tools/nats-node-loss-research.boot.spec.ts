import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { join } from 'node:path';
import { createDatabase, type NatsClusterHandle, type NodeStreamState, type PostgresServerHandle, type RunningPlatform, startNatsCluster, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer } from '@openpaw/testkit';
import { GatewayClient } from '../apps/gateway/src/e2e/e2e-client.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../apps/gateway/src/e2e/scripted-model-server.js';
import { StudyNotesModel } from '../apps/gateway/src/artifacts/testing/study-notes-model.js';
import { repeatedCommands } from '../libs/testkit/src/load/command-copies.js';
import { commandCounts } from '../libs/testkit/src/load/platform-facts.js';
import { nodeLossScale } from './testing/node-loss-scale.js';

/**
 * Artifact jobs (spec 02), research runs (spec 05) and paper searches (spec 06) through the loss of a
 * nats-server node and through a network partition (deploy/README.md, "The node-loss test"): the
 * coordinator, artifacts, research and gateway services from the build on a 3-node JetStream cluster on
 * loopback, streams and KV buckets at R3. Runs of the three workflows are started while the node leading
 * OPENPAW_COMMANDS is (1) SIGKILLed and restarted, (2) cut off from its peers and healed, (3) lost for
 * good. Every run must complete; duplicates are counted where side effects land: the artifact model's
 * calls per notebook, each research leg's provider call per user key (OpenAI and Anthropic), and the
 * scholarly source's requests per search, each against the same workflow's run before any fault; the
 * commands stream holds each command once.
 */
const root = join(import.meta.dirname, '..');
/** 1 in CI; the longer variant multiplies the runs and the time allowed (`OPENPAW_NODE_LOSS_SCALE`). */
const SCALE = nodeLossScale();
/** Runs of each workflow per scenario; the fault comes after the first half is started. */
const RUNS = 4 * SCALE;
const SPACING_MS = 300;
const RUN_TIMEOUT_MS = 150_000 * SCALE;
const DOWN_MS = 5_000;
const ISOLATED_MS = 10_000;
/** How much longer the isolated node may still be named leader outside before the test calls it split (a raft election timeout or two, longer on a loaded machine). */
const ELECTION_WAIT_MS = 20_000;

const NOTES = [
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'Chloroplasts are the organelles where photosynthesis happens in plant cells.',
  'Chlorophyll is the green pigment that absorbs red and blue light.',
  'The Calvin cycle uses carbon dioxide to build sugars in the stroma.',
].join(' ');

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A word of letters only, different for each (scenario, run): it marks a run's prompts and queries. */
function tagOf(scenario: number, run: number): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  return `zq${letters[scenario % letters.length] ?? 'b'}${letters[run % letters.length] ?? 'b'}${letters[(scenario * 7 + run * 3) % letters.length] ?? 'b'}`;
}

/** OpenAlex's `GET /works`, as the research service's adapter reads it: two works on the query's words, one page. */
interface OpenAlexServer {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

async function startOpenAlexServer(): Promise<OpenAlexServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(decodeURIComponent(url.search));
    const words = (url.searchParams.get('search') ?? url.searchParams.get('filter') ?? 'graph attention').toLowerCase().match(/[a-z]{3,}/g) ?? ['graph'];
    const work = (n: number) => ({
      id: `https://openalex.org/W${n}${words.join('')}`,
      doi: `https://doi.org/10.1000/${words.join('-')}-${n}`,
      display_name: `On ${words.join(' ')}, part ${n}`,
      publication_year: 2018 + n,
      authorships: [{ author: { id: 'https://openalex.org/A1', display_name: 'Ann Writer' } }],
      primary_location: { source: { display_name: 'ICLR' } },
      abstract_inverted_index: Object.fromEntries(words.map((w, i) => [w, [i]])),
      cited_by_count: 10 * n,
      ids: {},
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ meta: { count: 2, per_page: 25, next_cursor: null }, results: [work(1), work(2)] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Workflow = 'artifact' | 'research' | 'paper_search';
interface RunOutcome {
  readonly workflow: Workflow;
  readonly tag: string;
  readonly user: string;
  /** The run's last status, or how it was left ('unfinished …', 'start answered …'). */
  readonly status: string;
  /** The answers to the start request before it was accepted (each retried with the same Idempotency-Key). */
  readonly refusedStarts: readonly string[];
}

/**
 * Starts a run as a client does through a node loss: the same request (and Idempotency-Key) again on a
 * 503, a 500 or a gateway out of reach, until it is accepted; then polls its resource until its status is
 * terminal. A 404 while the run is not projected yet is polled again.
 */
async function driveRun(
  client: GatewayClient,
  start: { readonly path: string; readonly body: unknown; readonly idOf: (answer: Record<string, unknown>) => unknown },
  resource: (id: string) => string,
  key: string,
): Promise<{ status: string; refusedStarts: string[] }> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  let id: string | undefined;
  let last = 'never started';
  const refusedStarts: string[] = [];
  const ended = (status: string) => ({ status, refusedStarts });
  while (Date.now() < deadline) {
    let waitMs = 250;
    if (id === undefined) {
      const answer = await client.request(start.path, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(start.body) }).catch(() => undefined);
      if (answer?.status === 200 || answer?.status === 201 || answer?.status === 202) id = String(start.idOf((await answer.json()) as Record<string, unknown>));
      else {
        last = answer === undefined ? 'gateway out of reach' : `start answered ${answer.status}: ${await answer.text()}`;
        refusedStarts.push(last);
        // "Not now" is asked again after the wait it names (the bus electing a leader, the user's start rate); anything else is the answer.
        if (answer !== undefined && ![429, 500, 503].includes(answer.status)) return ended(last);
        waitMs = Math.max(waitMs, Number(answer?.headers.get('retry-after') ?? 0) * 1000);
      }
    } else {
      const answer = await client.request(resource(id)).catch(() => undefined);
      if (answer?.status === 200) {
        const body = (await answer.json()) as { status?: unknown; error?: unknown };
        const status = String(body.status);
        if (status === 'completed') return ended(status);
        if (status === 'failed' || status === 'cancelled') return ended(`${status}: ${JSON.stringify(body.error ?? null)}`);
        last = `still ${status}`;
      } else {
        last = answer === undefined ? 'gateway out of reach' : `read answered ${answer.status}`;
        await answer?.body?.cancel();
      }
    }
    await delay(waitMs);
  }
  return ended(`unfinished (${last})`);
}

describe('artifacts, research and paper search through nats-server node loss and a partition (3 nodes, R3)', () => {
  let cluster: NatsClusterHandle;
  let postgres: PostgresServerHandle;
  let platform: RunningPlatform;
  let studyModel: ScriptedModelServer;
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;
  let openalex: OpenAlexServer;
  let databaseUrl: string;
  /** The node the partition scenario cut off (on nats-server 2.9.10 its replicas may stay behind after the heal); '' until it picks one. */
  let lastCutOff = '';
  /** Commands stored more than once that a scenario already judged, as `<id> <copies>`. */
  const judgedCopies = new Set<string>();
  /** Side effects of one run of each workflow before any fault: what each run under faults must match. */
  const baseline = { artifactCalls: 0, scholarlyRequests: 0 };

  beforeAll(async () => {
    [cluster, postgres] = await Promise.all([startNatsCluster(3, undefined, { partitionable: true }), startPostgresServer({ fsync: false })]);
    databaseUrl = await createDatabase(postgres.adminUrl, 'openpaw_node_loss_research');
    studyModel = await startScriptedModelServer(new StudyNotesModel().answer);
    openai = await startOpenAiWireServer(() => ({ text: 'Defrost cycles and the falling outdoor temperature limit efficiency.' }));
    anthropic = await startAnthropicWireServer(() => ({ text: 'The compressor works harder as the outdoor temperature drops.' }));
    openalex = await startOpenAlexServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: cluster.urls.join(','),
      databaseUrl,
      services: ['coordinator', 'artifacts', 'research', 'gateway'],
      env: { OPENPAW_STREAM_REPLICAS: '3', OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: {
        artifacts: { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: studyModel.baseUrl, OPENAI_API_KEY: 'sk-node-loss', OPENPAW_LLM_MAX_ATTEMPTS: '1' },
        research: {
          // The service's own model is the local one (paper search by local rules, as with no credentials); research legs call the users' providers.
          OPENPAW_LLM_MODEL: 'local/deterministic',
          OPENPAW_LLM_FALLBACK_MODELS: 'local/deterministic',
          OPENAI_BASE_URL: openai.baseUrl,
          ANTHROPIC_BASE_URL: anthropic.baseUrl,
          OPENPAW_LLM_MAX_ATTEMPTS: '1',
          OPENPAW_SCHOLARLY_SOURCES: 'openalex',
          OPENPAW_OPENALEX_BASE_URL: openalex.url,
          OPENPAW_SCHOLARLY_MAILTO: 'team@openpaw.dev',
        },
        coordinator: {
          // The artifact job keeps its default timings: a validate try that times out (its command on the
          // cut-off node) is retried like plan and generate.
          OPENPAW_PAPER_SEARCH_JSON: JSON.stringify({ defaultSources: ['openalex'] }),
        },
      },
    });
  }, 240_000);

  afterAll(async () => {
    await platform?.stop();
    await Promise.all([studyModel?.close(), openai?.close(), anthropic?.close(), openalex?.close()]);
    await Promise.all([cluster?.dispose(), postgres?.dispose()]);
  });

  /** A user's client with what its runs need before they start: research keys stored, a notebook with one source. */
  async function prepare(user: string, tag: string): Promise<GatewayClient> {
    const client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, user);
    for (const provider of ['openai', 'anthropic']) {
      const stored = await client.request(`/research/keys/${provider}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: `sk-${provider}-${user}-0123456789` }) });
      expect({ provider, status: stored.status }).toEqual({ provider, status: 204 });
    }
    const source = await client.request(`/notebooks/nb-${tag}/sources`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `${NOTES} The ${tag} marker names this notebook.` }) });
    expect(source.status).toBe(201);
    return client;
  }

  function runs(client: GatewayClient, user: string, tag: string): Promise<RunOutcome>[] {
    const outcome = (workflow: Workflow) => (ended: { status: string; refusedStarts: string[] }): RunOutcome => ({ workflow, tag, user, ...ended });
    return [
      driveRun(client, { path: '/ai/chat', body: { message: 'Create a quiz on photosynthesis', session_id: `nb-${tag}`, options: { num_questions: 3 } }, idOf: (a) => a['job_id'] }, (id) => `/ai/artifact/${id}`, `${tag}-artifact`).then(outcome('artifact')),
      driveRun(client, { path: '/research', body: { prompt: `What limits heat pumps in very cold weather (${tag})?`, selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local' }, idOf: (a) => a['id'] }, (id) => `/research/${id}`, `${tag}-research`).then(outcome('research')),
      driveRun(client, { path: '/paper-searches', body: { query: `graph attention ${tag}`, options: { autoApprove: true } }, idOf: (a) => a['runId'] }, (id) => `/paper-searches/${id}`, `${tag}-papers`).then(outcome('paper_search')),
    ];
  }

  /** Each run's side effects, counted where they land, against the baseline run's; `{}` when every count matches. */
  async function sideEffectsOffBaseline(outcomes: readonly RunOutcome[]): Promise<Record<string, string>> {
    const off: Record<string, string> = {};
    const users = outcomes.map((o) => o.user);
    const [trails, artifactTrails] = await Promise.all([runTrails(users, 'research'), runTrails(users, 'artifact_job')]);
    for (const { workflow, tag, user, refusedStarts } of outcomes) {
      if (workflow === 'artifact') {
        const calls = studyModel.requests.filter((r) => r.messages.some((m) => m.content.includes(tag))).length;
        if (calls !== baseline.artifactCalls) off[`${tag} artifact model calls`] = `${calls}, not ${baseline.artifactCalls} (${user}'s jobs: ${artifactTrails.get(user) ?? 'not read'}; start refused first: ${refusedStarts.join(' | ') || 'never'})`;
      } else if (workflow === 'research') {
        for (const [provider, server] of [['openai', openai], ['anthropic', anthropic]] as const) {
          const calls = server.requests.filter((r) => r.apiKey === `sk-${provider}-${user}-0123456789`).length;
          if (calls !== 1) off[`${tag} research ${provider} leg calls`] = `${calls}, not 1 (${user}'s trail: ${trails.get(user) ?? 'not read'})`;
        }
      } else {
        const requests = openalex.requests.filter((r) => r.includes(tag)).length;
        if (requests !== baseline.scholarlyRequests) off[`${tag} scholarly requests`] = `${requests}, not ${baseline.scholarlyRequests}`;
      }
    }
    return off;
  }

  /** Each user's runs of a workflow and their step logs (what a count off its expected value is read against). */
  async function runTrails(users: readonly string[], workflowType: string): Promise<Map<string, string>> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ user_id: string; trail: string }>(
        `select r.user_id, r.id || ' ' || r.state || ' (' || r.idempotency_key || '): ' || coalesce(string_agg(l.step_name, ',' order by l.id), '') as trail
           from coordinator.workflow_runs r left join coordinator.workflow_step_logs l on l.workflow_run_id = r.id
          where r.user_id = any($1) and r.type = $2 group by r.user_id, r.id, r.state, r.idempotency_key`,
        [users, workflowType],
      );
      const trails = new Map<string, string>();
      for (const row of rows) trails.set(row.user_id, [trails.get(row.user_id), row.trail].filter((t) => t !== undefined).join(' | '));
      return trails;
    } finally {
      await db.end();
    }
  }

  /**
   * OPENPAW_COMMANDS holds each command once, but for copies that are not the platform's duplicates
   * (`repeatedCommands`): the coordinator's logged re-sends under a fresh msgId, and a msgId the server
   * kept twice inside the duplicate window (nats-server 2.9's replica left behind by the partition, ADR
   * 0036), which is measured and printed. A msgId stored again past the window, or a fresh msgId with no
   * logged re-send, fails. Whatever the copies, each run's side effects are counted once at the wire servers.
   */
  async function expectNoCommandCopyButResends(): Promise<void> {
    const reachable = cluster.names.map((node, i) => (cluster.pidOf(node) === undefined ? undefined : cluster.urls[i])).filter((url) => url !== undefined);
    const counts = await commandCounts(reachable.join(','));
    expect(Object.keys(counts).length).toBeGreaterThan(0);
    // Copies an earlier scenario already judged are not judged again (each scenario fails on its own).
    const repeated = (await repeatedCommands(counts, databaseUrl)).filter((r) => !judgedCopies.has(`${r.id} ${r.msgIds.length}`));
    for (const r of repeated) judgedCopies.add(`${r.id} ${r.msgIds.length}`);
    if (repeated.length > 0) {
      const copies = repeated.map((r) => `${r.subject} ${r.id}: msgIds ${r.msgIds.join(', ')}; coordinator ${r.resends.join(', ') || 'logged no re-send'}; kept twice by the server ${r.keptTwiceByServer}`);
      console.log(`commands stored more than once:\n${copies.join('\n')}`);
    }
    expect(repeated.filter((r) => r.unexplained > 0)).toEqual([]);
  }

  /** The last sequence of OPENPAW_COMMANDS in the node's own replica. */
  async function storedCommandsOn(node: string): Promise<number> {
    return (await cluster.streamsOn(node))['OPENPAW_COMMANDS']?.lastSeq ?? -1;
  }

  /** The node leading OPENPAW_COMMANDS, as the first running node that knows one sees it. */
  function commandsLeader(): Promise<string> {
    return leaderAsSeenBy(cluster.names);
  }

  async function leaderAsSeenBy(nodes: readonly string[]): Promise<string> {
    for (const node of nodes) {
      if (cluster.pidOf(node) === undefined) continue;
      const streams: Readonly<Record<string, NodeStreamState>> = await cluster.streamsOn(node).catch(() => ({}));
      const leader = streams['OPENPAW_COMMANDS']?.leader ?? '';
      if (leader !== '') return leader;
    }
    return '';
  }

  /**
   * RUNS runs of each workflow, one user and tag per round; `fault` runs once the first half is started
   * (concurrently with the rest). Resolves once every run ended, with the fault's own result.
   */
  async function underFault<T>(scenario: number, fault: () => Promise<T>): Promise<{ outcomes: RunOutcome[]; faultResult: T; seconds: number }> {
    const users = Array.from({ length: RUNS }, (_, i) => ({ user: `node-loss-${scenario}-${i}`, tag: tagOf(scenario, i) }));
    const clients = await Promise.all(users.map(({ user, tag }) => prepare(user, tag)));
    const begun = Date.now();
    const drives: Promise<RunOutcome>[] = [];
    let faulted: Promise<T> | undefined;
    for (const [i, { user, tag }] of users.entries()) {
      if (i === RUNS / 2) faulted = fault();
      const client = clients[i];
      if (client !== undefined) drives.push(...runs(client, user, tag));
      await delay(SPACING_MS);
    }
    const outcomes = await Promise.all(drives);
    const faultResult = await (faulted ?? fault());
    return { outcomes, faultResult, seconds: (Date.now() - begun) / 1000 };
  }

  const notCompleted = (outcomes: readonly RunOutcome[]): string[] => outcomes.filter((o) => o.status !== 'completed').map((o) => `${o.workflow} ${o.tag}: ${o.status}`);

  it('provisions every stream at R3, and one run of each workflow completes before any fault (the baseline of side effects)', async () => {
    expect(Object.values(await cluster.streamsOn(cluster.names[0] ?? 'n0')).length).toBeGreaterThan(2);
    const tag = tagOf(0, 0);
    const client = await prepare('node-loss-baseline', tag);
    const outcomes = await Promise.all(runs(client, 'node-loss-baseline', tag));
    expect(notCompleted(outcomes)).toEqual([]);
    baseline.artifactCalls = studyModel.requests.filter((r) => r.messages.some((m) => m.content.includes(tag))).length;
    baseline.scholarlyRequests = openalex.requests.filter((r) => r.includes(tag)).length;
    console.log(`baseline: an artifact job made ${baseline.artifactCalls} model calls, a paper search ${baseline.scholarlyRequests} scholarly requests`);
    expect(baseline.artifactCalls).toBeGreaterThan(0);
    expect(baseline.scholarlyRequests).toBeGreaterThan(0);
    expect(await sideEffectsOffBaseline(outcomes)).toEqual({});
  }, 180_000);

  it('the commands leader is SIGKILLed mid-load and restarted: every run completes, each side effect once (how the node catches up is measured)', async () => {
    const victim = await commandsLeader();
    expect(cluster.names).toContain(victim);
    const { outcomes, faultResult, seconds } = await underFault(1, async () => {
      await cluster.kill(victim);
      await delay(DOWN_MS);
      await cluster.restart(victim);
      return commandsLeader();
    });
    console.log(`node loss (artifacts, research, papers): ${victim} SIGKILLed for ${DOWN_MS} ms; commands leader after: ${faultResult}; ${outcomes.length} runs ended in ${seconds.toFixed(1)} s`);
    expect(notCompleted(outcomes)).toEqual([]);
    expect(await sideEffectsOffBaseline(outcomes)).toEqual({});
    await expectNoCommandCopyButResends();
    // Measured, not asserted, as after the partition (ADR 0036): on nats-server 2.9.10 a restarted node was
    // once left 1 message behind on OPENPAW_COMMANDS for 30 s (session 46, 1 of 6 runs); the runs and their
    // side effects above do not depend on it.
    const behind = await cluster.catchUp(victim, 30_000);
    console.log(`node loss: ${victim} ${behind.length === 0 ? 'caught up within 30 s of the runs ending' : `still behind 30 s after the runs ended (${behind.join('; ')})`}`);
  }, 240_000 * SCALE);

  it('a partition: the commands leader is cut off from its peers while runs go on, then healed; every run completes, each side effect once, nothing committed on the cut-off side', async () => {
    const isolated = await commandsLeader();
    expect(cluster.names).toContain(isolated);
    // Recorded before anything can fail: the next scenario loses this node whatever this one's outcome.
    lastCutOff = isolated;
    const { outcomes, faultResult, seconds } = await underFault(2, async () => {
      await cluster.isolate(isolated);
      // Cut off, it commits nothing (no quorum; it may still believe it leads) while the two others elect a
      // leader among themselves; the services connected to it stay connected to it.
      const clientsInside = await cluster.clientsOn(isolated);
      const storedInsideAtCut = await storedCommandsOn(isolated);
      await delay(ISOLATED_MS);
      // The two others elect among themselves within a raft election timeout or two; on a loaded machine that
      // once took longer than ISOLATED_MS (CI53 read the isolated node as leader outside): waited for, bounded.
      const outside = cluster.names.filter((node) => node !== isolated);
      let leaderOutside = await leaderAsSeenBy(outside);
      for (const until = Date.now() + ELECTION_WAIT_MS; (leaderOutside === '' || leaderOutside === isolated) && Date.now() < until; ) {
        await delay(250);
        leaderOutside = await leaderAsSeenBy(outside);
      }
      const seenInside = (await cluster.streamsOn(isolated))['OPENPAW_COMMANDS']?.leader ?? '';
      const storedInsideAtHeal = await storedCommandsOn(isolated);
      cluster.heal();
      return { seenInside, leaderOutside, clientsInside, storedInsideAtCut, storedInsideAtHeal };
    });
    console.log(`partition (artifacts, research, papers): ${isolated} isolated for ${ISOLATED_MS} ms with ${faultResult.clientsInside} clients on it; leader seen inside '${faultResult.seenInside}', outside '${faultResult.leaderOutside}'; ${outcomes.length} runs ended in ${seconds.toFixed(1)} s`);
    // No split brain: the cut-off node stored no command while it was cut off (whatever it believed it led).
    expect(faultResult.storedInsideAtHeal).toBe(faultResult.storedInsideAtCut);
    expect(cluster.names.filter((node) => node !== isolated)).toContain(faultResult.leaderOutside);
    expect(notCompleted(outcomes)).toEqual([]);
    expect(await sideEffectsOffBaseline(outcomes)).toEqual({});
    await expectNoCommandCopyButResends();
    // The healed node's replicas, measured, not asserted: on nats-server 2.9.10 the node that led a stream
    // when it was cut off was left 2-3 messages behind that stream's leader in 4 of 8 runs, and stayed
    // behind through the next round of writes (a replica desync; deploy/README.md, "The node-loss test").
    // The runs and their side effects above do not depend on it. Read once, after one more round of runs
    // on the healed cluster (asserted to complete) and up to 30 s more: a wait before that round as well
    // cost CI 30 s whenever the desync happened (3 of 3 CI runs before) and told nothing the one after does not.
    const tag = tagOf(2, RUNS);
    const next = await Promise.all(runs(await prepare(`node-loss-2-${RUNS}`, tag), `node-loss-2-${RUNS}`, tag));
    expect(notCompleted(next)).toEqual([]);
    const behind = await cluster.catchUp(isolated, 30_000);
    // Measured once: a restart did not repair it (still 1 behind). Such a node must not lead later (once,
    // losing the leader next made it the commands leader: a command stored twice, runs 120 s long), so the
    // next scenario loses this node for good.
    console.log(
      `partition healed: ${isolated} ${behind.length === 0 ? 'caught up' : `still behind (${behind.join('; ')})\n${cluster.logs(isolated).split('\n').filter((line) => /\[(WRN|ERR)\]/.test(line)).slice(-20).join('\n')}`} within 30 s after one more round of runs`,
    );
  }, 300_000 * SCALE);

  it('the node cut off before is lost for good mid-load: every run completes on the two survivors, each side effect once', async () => {
    // Without a partition before (its test stopped before picking a node) no replica is left behind: lose the commands leader.
    const lost = lastCutOff === '' ? await commandsLeader() : lastCutOff;
    expect(cluster.names).toContain(lost);
    const { outcomes, seconds } = await underFault(3, () => cluster.kill(lost));
    console.log(`node lost (artifacts, research, papers): ${lost} SIGKILLed for good; commands leader now ${await commandsLeader()}; ${outcomes.length} runs ended in ${seconds.toFixed(1)} s`);
    expect(cluster.pidOf(lost)).toBeUndefined();
    expect(notCompleted(outcomes)).toEqual([]);
    expect(await sideEffectsOffBaseline(outcomes)).toEqual({});
    await expectNoCommandCopyButResends();
  }, 240_000 * SCALE);
});
