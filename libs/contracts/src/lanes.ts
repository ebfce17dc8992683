import type { AnyMessageDefinition } from './message-definition.js';

/**
 * Lanes (flow control). Every command belongs to one lane, declared with the command in the catalog.
 * Each lane of a service consumes through its own durable consumer with its own concurrency, and can
 * run as its own process, so a queue of background work (video renders) never delays a critical step.
 *
 *   critical   a step of a run some user is waiting for (the default)
 *   <name>     a named lane: background work with its own workers (`video`, `background`, ...)
 *
 * Lane names are part of durable names (`svc-<service>` for critical, `svc-<service>-<lane>` for the
 * others): FROZEN once deployed, like subjects.
 */
export type Lane = string;

export const CRITICAL_LANE = 'critical';
/** Rendering of solution videos (CPU-heavy, minutes under load); ops scale its workers apart. */
export const VIDEO_LANE = 'video';
/**
 * Videos a policy asks for with priority (`video_generation: sync`): their own workers, so they never
 * queue behind background renders (JetStream delivers a consumer's messages in stream order).
 */
export const PRIORITY_VIDEO_LANE = 'priorityvideo';
/**
 * Visual degrees' fan-out steps (image search, recognition of up to N images, LLM selection): seconds
 * each, many per run; their own workers, so they never queue ahead of a critical step.
 */
export const VISUAL_LANE = 'visual';

/**
 * The paper-search skills of the research service (spec 04): source searches are rate-limited and
 * slow (seconds to a minute), LLM scoring likewise, so they never queue ahead of critical steps.
 */
export const PAPER_SEARCH_LANE = 'papersearch';

/** Research legs and synthesis (spec 05): model calls of up to an hour each, on their own workers. */
export const RESEARCH_LANE = 'research';

const LANE_NAME = /^[a-z][a-z0-9]*$/;

export function assertLaneName(lane: Lane): Lane {
  if (!LANE_NAME.test(lane)) throw new Error(`invalid lane "${lane}": lower-case letters and digits`);
  return lane;
}

/**
 * The durable consumer of one lane of a service. FROZEN: `svc-<service>` (the critical lane keeps the
 * name the service's single consumer always had) and `svc-<service>-<lane>`.
 */
export function laneDurableOf(service: string, lane: Lane): string {
  return lane === CRITICAL_LANE ? `svc-${service}` : `svc-${service}-${lane}`;
}

/** The lane a command is consumed on (`critical` unless declared otherwise); undefined for events. */
export function laneOf(definition: AnyMessageDefinition): Lane | undefined {
  return definition.kind === 'cmd' ? (definition.lane ?? CRITICAL_LANE) : undefined;
}

/** The lanes of a service, from the catalog, each with its commands (critical first). */
export function lanesOfService(catalog: readonly AnyMessageDefinition[], service: string): ReadonlyMap<Lane, readonly AnyMessageDefinition[]> {
  const lanes = new Map<Lane, AnyMessageDefinition[]>([[CRITICAL_LANE, []]]);
  for (const definition of catalog) {
    if (definition.kind !== 'cmd' || definition.context !== service) continue;
    const lane = laneOf(definition) ?? CRITICAL_LANE;
    const commands = lanes.get(lane) ?? [];
    commands.push(definition);
    lanes.set(lane, commands);
  }
  return lanes;
}

/** The coordinator's durable consumer of its own commands (outside the lanes catalog: StartRun, CancelRun, ...). FROZEN. */
export const COORDINATOR_COMMANDS_CONSUMER = 'coordinator';

/**
 * The durables whose backlog says whether the platform keeps up with user-facing steps: the
 * coordinator's commands and the critical lane of every service that takes commands. The gateway's
 * admission control reads them (consumer info: counts, no payload), and its NATS user may read no
 * other lane's (`deploy/src/nats-credentials.ts`).
 */
export function criticalBacklogDurables(catalog: readonly AnyMessageDefinition[]): readonly string[] {
  const services = new Set(catalog.filter((definition) => definition.kind === 'cmd' && definition.context !== 'coordinator').map((definition) => definition.context));
  return [COORDINATOR_COMMANDS_CONSUMER, ...[...services].map((service) => laneDurableOf(service, CRITICAL_LANE))];
}
