import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, type ServiceName, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer } from '@openpaw/testkit';
import { ResearchApiClient } from '../research/testing/research-api-client.js';
import { coordinatorRoundTrips, type MessageBudget, overBudget, quietCounts, spentPerUnit, storedBySubject, storedPerUnit } from '../testing/message-budget.js';

const root = join(import.meta.dirname, '../../../..');

/**
 * The message budget of a research leg (issue 23), as `bench/research` runs them: one run of three
 * instant legs (`openai` and `anthropic` on local wire servers, `local`) and the local synthesis,
 * summed over the coordinator's, the research service's and the gateway's `/metrics`,
 * divided by the legs. Counts do not depend on the machine (a budget is an upper bound: a service that
 * coalesces replies finishing together only spends less), so this fails when a change makes a leg
 * cost more than the committed budget. Lower a budget when a change makes a leg cheaper.
 *
 * Measured when the budget was set, per run of 3 legs (the spec prints the split per service and the
 * messages stored per subject):
 *  - publishes 16: StartRun (gateway); ExecuteResearchLegs (one batched command for the 3 legs),
 *    SynthesizeResearch, ResearchCompleted and 5 RunStateChanged v2 (coordinator); 3 ResearchLegStarted,
 *    3 ResearchLegCompleted and ResearchSynthesized (research);
 *  - deliveries 21: 9 to the coordinator, 7 to the research service (its lanes and the webhook
 *    deliveries each read the subjects they share a stream filter with), 5 to the gateway's projection;
 *  - commits 13–14: 5–6 coordinator transactions, 1–2 kept-reply group commits in research, 5 projection
 *    writes;
 *  - lookups 2–5: research looks up the kept replies of the batched legs (one group look-up when their
 *    items arrive together, one each at worst) and of the synthesis (2 measured on a quiet machine);
 *  - validations 20: each delivery once on the way in (21, less what is only acked by subject), and
 *    StartRun and the research commands on the way out.
 * The legs' replies land in 5 or 6 coordinator transactions, by timing (each is one run change): the
 * budget allows the sixth, and nothing more. Each of those transactions is one round trip of the
 * coordinator to PostgreSQL (the StartRun of the new run too: decided without a read, ADR 0032) — 5 per
 * run measured on a quiet machine. The legs' replies of one run may land in two batches at once; the one
 * that commits second was decided from the run as it was before the first, so its guard fails and it is
 * decided again under lock (1 + 2 round trips): measured 7.5 per run under CI's load. The budget allows
 * that for half the transactions, and nothing more.
 */
const LEG_COORDINATOR_ROUND_TRIPS = 9 / 3;
const LEG_BUDGET: MessageBudget = {
  publishes: 17 / 3,
  deliveries: 22 / 3,
  commits: 15 / 3,
  lookups: 5 / 3,
  validations: 21 / 3,
};

const SERVICES: readonly ServiceName[] = ['coordinator', 'research', 'gateway'];
const RUNS = 2;
const LEGS = ['openai', 'anthropic', 'local'] as const;
const REPORT = 'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C. Gas boilers convert at most 95 percent of the fuel energy into heat.';
const PROMPT = 'How efficient are cold-climate heat pumps?';

describe('message budget of a research leg (3 instant legs per run; every service a process)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;

  beforeAll(async () => {
    openai = await startOpenAiWireServer(() => ({ text: `openai: ${REPORT}` }));
    anthropic = await startAnthropicWireServer(() => ({ text: `anthropic: ${REPORT}` }));
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_research_budget'),
      services: SERVICES,
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: { research: { OPENAI_BASE_URL: openai.baseUrl, ANTHROPIC_BASE_URL: anthropic.baseUrl } },
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
    await anthropic?.close();
  });

  it('spends no more per leg than the committed budget', async () => {
    const client = await ResearchApiClient.forUser(platform, 'budget-researcher');
    for (const provider of ['openai', 'anthropic']) expect((await client.call('PUT', `/research/keys/${provider}`, { apiKey: `sk-${provider}-budget-0123456789` })).status).toBe(204);
    const researchToTheEnd = async (): Promise<void> => {
      const started = await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: LEGS, synthesisLlm: 'local', externalReports: [{ content: REPORT }] });
      expect(started.status).toBe(202);
      const done = await client.waitFor(started.body['id'] as string, (view) => view['status'] === 'completed' || view['status'] === 'failed');
      expect(done['status']).toBe('completed');
    };
    // Caches, connections and the share page's first render warm.
    await researchToTheEnd();
    const before = await quietCounts(platform, SERVICES);
    const roundTripsBefore = await coordinatorRoundTrips(platform);
    const storedBefore = await storedBySubject(nats.url);
    for (let i = 0; i < RUNS; i += 1) await researchToTheEnd();
    const spent = spentPerUnit(before, await quietCounts(platform, SERVICES), RUNS * LEGS.length);
    const roundTrips = ((await coordinatorRoundTrips(platform)) - roundTripsBefore) / (RUNS * LEGS.length);
    console.log(`message budget per research leg: ${JSON.stringify(spent.total)}, coordinator round trips ${roundTrips.toFixed(2)}\n${spent.byService.join('\n')}\nstored per leg: ${storedPerUnit(storedBefore, await storedBySubject(nats.url), RUNS * LEGS.length)}`);
    expect(overBudget(spent, LEG_BUDGET, 'leg')).toEqual([]);
    expect(roundTrips).toBeLessThanOrEqual(LEG_COORDINATOR_ROUND_TRIPS + 1e-9);
  });
});
