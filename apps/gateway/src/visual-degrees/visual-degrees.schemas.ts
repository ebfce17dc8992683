import { VISUAL_DEGREES_EVENT_TYPES, visualDegreesEvidenceCard, visualDegreesPartialEvidence, visualDegreesRequest, visualDegreesRunView, visualDegreesStreamEvent, type VisualDegreesStreamEvent } from '@openpaw/contracts';
import { z } from 'zod';
import { runResource } from '../runs/runs.schemas.js';

/** `POST /visual-degrees` body: two persons and optional limits (the workflow's own input schema). */
export const visualDegreesBody = visualDegreesRequest;

export const visualDegreesLinks = z.object({ self: z.string(), events: z.string(), cancel: z.string() });

export const visualDegreesAccepted = z.object({
  runId: z.uuid(),
  state: z.string().describe('`INITIALIZING` until the coordinator has started the run.'),
  terminal: z.boolean(),
  links: visualDegreesLinks,
});

/** One stream event as the run's view keeps it (the contract's). */
export { visualDegreesStreamEvent, type VisualDegreesStreamEvent };

const frameId = z.string().describe('The event’s `seq`: send it back as `Last-Event-ID` to resume after it.');

/**
 * One frame of `GET /visual-degrees/{id}/events` (`event: <type>`, `id: <seq>`, `data: <JSON>`), as
 * documented: an `evidence` frame's data is the contract's evidence card (or partial evidence, marked
 * `partial`), so a change to either changes the console's generated type.
 */
export const visualDegreesStreamFrame = z.discriminatedUnion('event', [
  z.object({ event: z.literal('evidence'), id: frameId, data: z.union([visualDegreesEvidenceCard, visualDegreesPartialEvidence]) }),
  z.object({ event: z.enum(VISUAL_DEGREES_EVENT_TYPES.filter((type) => type !== 'evidence')), id: frameId, data: z.record(z.string(), z.unknown()) }),
]);

export const visualDegreesRun = runResource.extend({
  view: visualDegreesRunView,
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
