import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, type ServiceName, startPlatformProcesses } from '@openpaw/testing';
import { MESSAGE_COUNTER_METRICS } from '@openpaw/platform';
import { GatewayClient } from './e2e-client.js';

const root = join(import.meta.dirname, '../../../..');

/**
 * The message budget of a hit-path run (issue 23): what one copy → new run → retrieval hit costs
 * the platform in JetStream publishes, deliveries, PostgreSQL commits of the message path and
 * message validations (zod parses), summed over every service's `/metrics` (the coordinator's
 * message budget, and every other service's from ServiceMessagingModule). Counts do not depend on
 * the machine: this fails when a change makes the run cost more than the committed budget. Lower a
 * budget when a change makes the run cheaper.
 *
 * One run is StartRun, then INGESTING (NormalizeMedia → MediaNormalized, the problem key claimed in the
 * same coordinator transaction), RETRIEVING (SearchSolutions → RetrievalHit) and SUCCEEDED: three
 * coordinator transactions, each publishing one RunStateChanged v2 for the run (ADR 0024). Per run:
 *  - publishes 8: StartRun (gateway); NormalizeMedia, SearchSolutions and 3 RunStateChanged
 *    (coordinator); MediaNormalized (ingestion); RetrievalHit (retrieval);
 *  - deliveries 8: StartRun, MediaNormalized and RetrievalHit to the coordinator, NormalizeMedia to
 *    ingestion, SearchSolutions to retrieval, the 3 RunStateChanged to the gateway's projection;
 *  - commits 8: 3 coordinator transactions, a kept reply in ingestion and one in retrieval, 3
 *    projection writes (the waiting request's replica writes a change through before its watchers
 *    hear it; the projection consumer's apply of the same change is then no second write);
 *  - validations 11: every delivery parsed once on the way in (8), and StartRun, NormalizeMedia and
 *    SearchSolutions on the way out (3: data not built by the engine from its typed data). The
 *    gateway's live subscription parses the 3 RunStateChanged first (it feeds the waiting request);
 *    its projection consumer then takes those parses (`ValidatedEnvelopes`) rather than parse again.
 */
const HIT_RUN_BUDGET = {
  publishes: 8,
  deliveries: 8,
  commits: 8,
  validations: 11,
} as const;

type Counted = keyof typeof HIT_RUN_BUDGET;
const COUNTED: readonly Counted[] = ['publishes', 'deliveries', 'commits', 'validations'];
const METRIC_OF: Record<Counted, string> = {
  publishes: MESSAGE_COUNTER_METRICS.published,
  deliveries: MESSAGE_COUNTER_METRICS.delivered,
  commits: MESSAGE_COUNTER_METRICS.commits,
  validations: MESSAGE_COUNTER_METRICS.validations,
};

const SERVICES: readonly ServiceName[] = ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'];
const RUNS = 3;
const PROBLEM = '7x + 4 = 25';

type Counts = Record<Counted, number>;

/** A service's message counters, from the Prometheus text of its `/metrics`. */
async function countsOf(platform: RunningPlatform, service: ServiceName): Promise<Counts> {
  const text = await (await fetch(`${platform.urlOf(service)}/metrics`)).text();
  const value = (metric: string): number => {
    const line = new RegExp(`^${metric} ([0-9.e+]+)$`, 'm').exec(text);
    if (line?.[1] === undefined) throw new Error(`${service} does not export ${metric}`);
    return Number(line[1]);
  };
  return { publishes: value(METRIC_OF.publishes), deliveries: value(METRIC_OF.deliveries), commits: value(METRIC_OF.commits), validations: value(METRIC_OF.validations) };
}

async function countsByService(platform: RunningPlatform): Promise<Map<ServiceName, Counts>> {
  return new Map(await Promise.all(SERVICES.map(async (service) => [service, await countsOf(platform, service)] as const)));
}

/**
 * The counters once the platform is quiet: two readings 400 ms apart agree (a run's answer reaches
 * the client before its last projection write and acks are done; those belong to the run too).
 */
async function quietCounts(platform: RunningPlatform): Promise<Map<ServiceName, Counts>> {
  let previous = await countsByService(platform);
  for (let reading = 0; reading < 50; reading += 1) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const now = await countsByService(platform);
    if (JSON.stringify([...now]) === JSON.stringify([...previous])) return now;
    previous = now;
  }
  throw new Error('the platform did not go quiet within 20 s');
}

describe('message budget of a hit-path run (copy → new run → retrieval hit; every service a process)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_hit_budget'),
      services: SERVICES,
      // The video is a background run of its own, not part of the hit path.
      env: { OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { video_generation: 'skip' } }) },
    });
  });

  afterAll(async () => {
    await platform.stop();
    await nats.dispose();
  });

  it('spends no more per hit run than the committed budget', async () => {
    const user = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'budget-user');
    // The miss that indexes the problem, then one hit (caches and connections warm).
    const solved = await user.submitText(PROBLEM, 60, 'solve');
    expect(solved.body.result?.outcome).toBe('new');
    expect((await user.submitText(PROBLEM, 60, 'warm_up')).body.result?.outcome).toBe('hit');
    const before = await quietCounts(platform);
    for (let i = 0; i < RUNS; i += 1) {
      // Another intent is another idempotency key: a new run of the same problem, answered by retrieval.
      const copy = await user.submitText(PROBLEM, 60, `budget_${i}`);
      expect(copy.body.result?.outcome).toBe('hit');
    }
    const after = await quietCounts(platform);
    const perRun = Object.fromEntries(COUNTED.map((what) => [what, 0])) as Counts;
    const byService: string[] = [];
    for (const service of SERVICES) {
      const spent = COUNTED.map((what) => [what, ((after.get(service)?.[what] ?? 0) - (before.get(service)?.[what] ?? 0)) / RUNS] as const);
      for (const [what, n] of spent) perRun[what] += n;
      byService.push(`${service}: ${spent.map(([what, n]) => `${what} ${n.toFixed(2)}`).join(', ')}`);
    }
    console.log(`message budget per hit run: ${JSON.stringify(perRun)}\n${byService.join('\n')}`);
    const overBudget = COUNTED.filter((what) => perRun[what] > HIT_RUN_BUDGET[what] + 1e-9).map(
      (what) => `${what}: ${perRun[what].toFixed(2)} per run > budget ${HIT_RUN_BUDGET[what]} (${byService.join('; ')})`,
    );
    expect(overBudget).toEqual([]);
  });
});
