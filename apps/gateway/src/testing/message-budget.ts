import { jetstreamManager } from '@nats-io/jetstream';
import { STREAMS } from '@openpaw/contracts';
import { connectNats } from '@openpaw/messaging';
import { MESSAGE_COUNTER_METRICS } from '@openpaw/platform';
import type { RunningPlatform, ServiceName } from '@openpaw/testing';

/**
 * Message budgets of whole-platform e2e specs (issue 23): what a unit of work (a hit-path run, a
 * research leg) costs in JetStream publishes, deliveries, PostgreSQL commits of the message path,
 * kept-reply look-ups and message validations, summed over the `/metrics` of every service of the platform. Counts do not
 * depend on the machine, so a budget is a gate a bench cannot be.
 */
export type Counted = 'publishes' | 'deliveries' | 'commits' | 'lookups' | 'validations';
export type MessageBudget = Readonly<Record<Counted, number>>;
type Counts = Record<Counted, number>;

const COUNTED: readonly Counted[] = ['publishes', 'deliveries', 'commits', 'lookups', 'validations'];
const METRIC_OF: Readonly<Record<Counted, string>> = {
  publishes: MESSAGE_COUNTER_METRICS.published,
  deliveries: MESSAGE_COUNTER_METRICS.delivered,
  commits: MESSAGE_COUNTER_METRICS.commits,
  lookups: MESSAGE_COUNTER_METRICS.lookups,
  validations: MESSAGE_COUNTER_METRICS.validations,
};

export type ServiceCounts = ReadonlyMap<ServiceName, Counts>;

/** Reads counters of one service's `/metrics` (Prometheus text); throws naming a counter it does not export. */
async function metricsOf(platform: RunningPlatform, service: ServiceName): Promise<(metric: string) => number> {
  const text = await (await fetch(`${platform.urlOf(service)}/metrics`)).text();
  return (metric) => {
    const line = new RegExp(`^${metric} ([0-9.e+]+)$`, 'm').exec(text);
    if (line?.[1] === undefined) throw new Error(`${service} does not export ${metric}`);
    return Number(line[1]);
  };
}

/** A service's message counters, from the Prometheus text of its `/metrics`. */
async function countsOf(platform: RunningPlatform, service: ServiceName): Promise<Counts> {
  const value = await metricsOf(platform, service);
  return {
    publishes: value(METRIC_OF.publishes),
    deliveries: value(METRIC_OF.deliveries),
    commits: value(METRIC_OF.commits),
    lookups: value(METRIC_OF.lookups),
    validations: value(METRIC_OF.validations),
  };
}

/**
 * The coordinator's round trips to PostgreSQL for saga batches so far (its `/metrics`): a batch decided
 * from memory takes one, the locking path one more per read it waits for.
 */
export async function coordinatorRoundTrips(platform: RunningPlatform): Promise<number> {
  return (await metricsOf(platform, 'coordinator'))('openpaw_saga_batch_round_trips_total');
}

async function countsByService(platform: RunningPlatform, services: readonly ServiceName[]): Promise<ServiceCounts> {
  return new Map(await Promise.all(services.map(async (service) => [service, await countsOf(platform, service)] as const)));
}

/**
 * The counters once the platform is quiet: two readings 400 ms apart agree (a client hears of the
 * end of its work before the last projection writes and acks are done; those belong to it too).
 */
export async function quietCounts(platform: RunningPlatform, services: readonly ServiceName[]): Promise<ServiceCounts> {
  let previous = await countsByService(platform, services);
  for (let reading = 0; reading < 50; reading += 1) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const now = await countsByService(platform, services);
    if (JSON.stringify([...now]) === JSON.stringify([...previous])) return now;
    previous = now;
  }
  throw new Error('the platform did not go quiet within 20 s');
}

/** What `units` units of work spent between two readings, per unit: in all and per service (printed). */
export function spentPerUnit(before: ServiceCounts, after: ServiceCounts, units: number): { total: Counts; byService: string[] } {
  const total: Counts = { publishes: 0, deliveries: 0, commits: 0, lookups: 0, validations: 0 };
  const byService: string[] = [];
  for (const [service, counts] of after) {
    const spent = COUNTED.map((what) => [what, (counts[what] - (before.get(service)?.[what] ?? 0)) / units] as const);
    for (const [what, n] of spent) total[what] += n;
    byService.push(`${service}: ${spent.map(([what, n]) => `${what} ${n.toFixed(2)}`).join(', ')}`);
  }
  return { total, byService };
}

/** The counts above `budget`, each named with its figure (empty when within budget). */
export function overBudget(spent: { total: Counts; byService: readonly string[] }, budget: MessageBudget, unit: string): string[] {
  return COUNTED.filter((what) => spent.total[what] > budget[what] + 1e-9).map(
    (what) => `${what}: ${spent.total[what].toFixed(2)} per ${unit} > budget ${budget[what].toFixed(2)} (${spent.byService.join('; ')})`,
  );
}

/** Messages stored per subject in the commands and events streams (to print where a budget goes). */
export async function storedBySubject(natsUrl: string): Promise<ReadonlyMap<string, number>> {
  const nc = await connectNats({ servers: natsUrl, name: 'message-budget-reader', connectOptions: { waitOnFirstConnect: false } });
  try {
    const jsm = await jetstreamManager(nc);
    const counts = new Map<string, number>();
    for (const stream of [STREAMS.commands.name, STREAMS.events.name]) {
      const info = await jsm.streams.info(stream, { subjects_filter: '>' });
      for (const [subject, n] of Object.entries(info.state.subjects ?? {})) counts.set(subject, n);
    }
    return counts;
  } finally {
    await nc.close();
  }
}

/** What was stored per subject between two readings, per unit of work, most first. */
export function storedPerUnit(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, units: number): string {
  return [...after]
    .map(([subject, n]) => [subject, (n - (before.get(subject) ?? 0)) / units] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([subject, n]) => `${subject} ${n.toFixed(2)}`)
    .join('; ');
}
