import { VISUAL_DEGREES_EVENT_TYPES, visualDegreesRequest } from '@openpaw/contracts';
import { z } from 'zod';
import { runResource } from '../runs/runs.schemas.js';

/** `POST /visual-degrees` body: two persons and optional limits (the workflow's own input schema). */
export const visualDegreesBody = visualDegreesRequest;

/** `Idempotency-Key`: the same key from the same user is the same run. */
export const idempotencyKeyHeader = z.string().trim().min(1).max(200).optional();

export const visualDegreesLinks = z.object({ self: z.string(), events: z.string(), cancel: z.string() });

export const visualDegreesAccepted = z.object({
  runId: z.uuid(),
  state: z.string().describe('`INITIALIZING` until the coordinator has started the run.'),
  terminal: z.boolean(),
  links: visualDegreesLinks,
});

/** One stream event as the run's view keeps it (and the SSE stream sends it: `event: <type>`, `id: <seq>`). */
export const visualDegreesStreamEvent = z.object({
  seq: z.int().positive(),
  type: z.enum(VISUAL_DEGREES_EVENT_TYPES),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type VisualDegreesStreamEvent = z.infer<typeof visualDegreesStreamEvent>;

export const visualDegreesRun = runResource.extend({
  view: z
    .object({
      status: z.enum(['running', 'succeeded', 'failed', 'cancelled']),
      state: z.string(),
      from: z.string(),
      to: z.string(),
      hop_limit: z.int(),
      hop_depth: z.int().describe('Verified edges on the chain so far.'),
      path: z.array(z.string()).describe('The verified chain from `from` to the current frontier (ends at `to` on success).'),
      budgets: z.record(z.string(), z.number()),
      used: z.record(z.string(), z.number()),
      events: z.array(visualDegreesStreamEvent),
      result: z.record(z.string(), z.unknown()).optional().describe('S6: `{ path, edges, confidenceMap, graph }`.'),
      failure: z.object({ reason: z.string(), detail: z.string() }).optional().describe('S7: why no path.'),
    })
    .partial()
    .catchall(z.unknown()),
  links: visualDegreesLinks,
});

/** The stream events a run's view holds, in order; an event this gateway cannot read is left out, the others kept. */
export function streamEventsOf(view: Record<string, unknown>): VisualDegreesStreamEvent[] {
  const events = view['events'];
  if (!Array.isArray(events)) return [];
  return events.flatMap((event) => {
    const parsed = visualDegreesStreamEvent.safeParse(event);
    return parsed.success ? [parsed.data] : [];
  }).sort((a, b) => a.seq - b.seq);
}

export function linksOf(runId: string): z.infer<typeof visualDegreesLinks> {
  return { self: `/visual-degrees/${runId}`, events: `/visual-degrees/${runId}/events`, cancel: `/visual-degrees/${runId}/cancel` };
}
