import { decision, paperSearchStart, publicPaperSearchView } from '@openpaw/contracts';
import { z } from 'zod';

/** `POST /paper-searches`: the query and its options (the `paper_search` start input). */
export const createPaperSearchBody = paperSearchStart;

export const paperSearchIdParams = z.object({ id: z.uuid() });
export const checkpointParams = z.object({ id: z.uuid(), checkpointId: z.uuid() });

/** `POST /paper-searches/:id/checkpoints/:checkpointId/decision` (spec 04's Decision: action, revisedData, note). */
export const decisionBody = decision;

export const EXPORT_FORMATS = ['bibtex', 'ris', 'csl-json'] as const;
export const exportQuery = z.object({ format: z.enum(EXPORT_FORMATS).describe('bibtex, ris or csl-json') });
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const links = z.object({ self: z.string(), events: z.string(), export: z.string() });

/** A paper search as the API shows it: the run and its view (open checkpoint, accumulated papers, result). */
export const paperSearchResource = publicPaperSearchView.extend({
  runId: z.uuid(),
  terminal: z.boolean(),
  attemptNo: z.int().positive(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  links,
});
export type PaperSearchResource = z.infer<typeof paperSearchResource>;

/** 202 of `POST /paper-searches` when the coordinator has not reported the run yet. */
export const paperSearchAccepted = z.object({ runId: z.uuid(), state: z.string(), status: z.literal('running'), links });

export const decisionAccepted = z.object({
  runId: z.uuid(),
  checkpointId: z.uuid(),
  status: z.enum(['applied', 'pending']).describe('`pending`: the coordinator has not answered within the wait (the decision is queued).'),
  state: z.string(),
});

export const staleCheckpointBody = z.object({
  error: z.literal('stale_checkpoint'),
  message: z.string(),
  openCheckpointId: z.uuid().nullable(),
});

export function linksOf(runId: string): z.infer<typeof links> {
  return { self: `/paper-searches/${runId}`, events: `/runs/${runId}/events`, export: `/paper-searches/${runId}/export?format=bibtex` };
}
