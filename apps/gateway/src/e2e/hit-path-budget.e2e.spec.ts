import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, type ServiceName, startPlatformProcesses } from '@openpaw/testing';
import { GatewayClient } from './e2e-client.js';
import { coordinatorRoundTrips, type MessageBudget, overBudget, quietCounts, spentPerUnit, storedBySubject, storedPerUnit } from '../testing/message-budget.js';

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
 *  - lookups 0: ingestion's normalising of a typed text and retrieval's search are pure work, whose
 *    kept-reply look-up rides in the keep (one round trip each, counted as its commit);
 *  - validations 11: every delivery parsed once on the way in (8), and StartRun, NormalizeMedia and
 *    SearchSolutions on the way out (3: data not built by the engine from its typed data). The
 *    gateway's live subscription parses the 3 RunStateChanged first (it feeds the waiting request);
 *    its projection consumer then takes those parses (`ValidatedEnvelopes`) rather than parse again.
 * And 3 round trips of the coordinator to PostgreSQL: each of its transactions is decided without a
 * read first and leaves with its COMMIT (the run is new; the key it claims is free; the key's holder
 * ends with no run waiting), where the locking path took 8 (a read before each write, and the
 * key claim's and the holder's end's own statements).
 */
const HIT_RUN_COORDINATOR_ROUND_TRIPS = 3;
const HIT_RUN_BUDGET: MessageBudget = {
  publishes: 8,
  deliveries: 8,
  commits: 8,
  lookups: 0,
  validations: 11,
};

const SERVICES: readonly ServiceName[] = ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'];
const RUNS = 3;
const PROBLEM = '7x + 4 = 25';

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
    const before = await quietCounts(platform, SERVICES);
    const roundTripsBefore = await coordinatorRoundTrips(platform);
    const storedBefore = await storedBySubject(nats.url);
    for (let i = 0; i < RUNS; i += 1) {
      // Another intent is another idempotency key: a new run of the same problem, answered by retrieval.
      const copy = await user.submitText(PROBLEM, 60, `budget_${i}`);
      expect(copy.body.result?.outcome).toBe('hit');
    }
    const spent = spentPerUnit(before, await quietCounts(platform, SERVICES), RUNS);
    const roundTrips = ((await coordinatorRoundTrips(platform)) - roundTripsBefore) / RUNS;
    console.log(`message budget per hit run: ${JSON.stringify(spent.total)}, coordinator round trips ${roundTrips}\n${spent.byService.join('\n')}\nstored per run: ${storedPerUnit(storedBefore, await storedBySubject(nats.url), RUNS)}`);
    expect(overBudget(spent, HIT_RUN_BUDGET, 'run')).toEqual([]);
    expect(roundTrips).toBeLessThanOrEqual(HIT_RUN_COORDINATOR_ROUND_TRIPS);
  });
});
