import { z } from 'zod';
import { VISUAL_DEGREES_EVENT_TYPES, VISUAL_DEGREES_NO_PATH_REASONS } from '../messages/visual-degrees.js';
import { visualWorldInfo } from '../messages/visual-search.js';
import { RUN_STATUSES } from './retrieve-or-generate-view.js';

/** One stream event as a `visual_degrees` run's view keeps it (and the gateway's SSE stream sends it: `event: <type>`, `id: <seq>`). */
export const visualDegreesStreamEvent = z.object({
  seq: z.int().positive(),
  type: z.enum(VISUAL_DEGREES_EVENT_TYPES),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type VisualDegreesStreamEvent = z.infer<typeof visualDegreesStreamEvent>;

/**
 * The `data` of an `evidence` stream event: a verified edge as the client sees it (its best image by
 * the edge rule, the page it came from, both confidences). The coordinator writes it, the gateway
 * documents it on the event stream, and the console's type is generated from that document.
 */
export const visualDegreesEvidenceCard = z.object({
  from: z.string(),
  to: z.string(),
  edgeConf: z.number().min(0).max(100).describe('max over the edge’s images of min(confidenceFrom, confidenceTo).'),
  imageUrl: z.string(),
  sourcePageUrl: z.string().nullable().describe('The page the image was found on: credit the picture to it.'),
  confidenceFrom: z.number().min(0).max(100),
  confidenceTo: z.number().min(0).max(100),
  images: z.int().nonnegative().describe('How many images showed both persons at or above the threshold.'),
  thumbnail: z
    .string()
    .nullable()
    .describe('Its stored thumbnail’s id (the photo’s pHash; `GET /visual-degrees/{id}/evidence/{thumbnail}` signs a URL of it for the run’s owner); null when none was stored or it was taken down.'),
});
export type VisualDegreesEvidenceCard = z.infer<typeof visualDegreesEvidenceCard>;

/**
 * The `data` of an `evidence` stream event for partial evidence (spec 03, S1: "A present but not B"):
 * the direct attempt found photos showing one of the two (or both below the threshold), which is not
 * a link. Its best image (the strongest confidence on either side) and how many such images there were.
 */
export const visualDegreesPartialEvidence = z.object({
  partial: z.literal(true).describe('Not a verified link: only one side was recognised at the threshold.'),
  from: z.string(),
  to: z.string(),
  imageUrl: z.string(),
  sourcePageUrl: z.string().nullable(),
  confidenceFrom: z.number().min(0).max(100).nullable().describe('null: `from` was not recognised in the image.'),
  confidenceTo: z.number().min(0).max(100).nullable().describe('null: `to` was not recognised in the image.'),
  images: z.int().positive().describe('How many images showed one side only (or both below the threshold).'),
});
export type VisualDegreesPartialEvidence = z.infer<typeof visualDegreesPartialEvidence>;

/**
 * The `view` of a `visual_degrees` run (`VISUAL_DEGREES`) as its definition writes it into
 * `RunStateChanged`: chains, budgets, stream events and the result or the reason for no path. The
 * coordinator's view mapping is checked against it; the gateway documents and reads a lenient form
 * of it (`visualDegreesRunView`).
 */
export const visualDegreesView = z.object({
  status: z.enum(RUN_STATUSES),
  state: z.string(),
  from: z.string(),
  to: z.string(),
  hop_limit: z.int(),
  hop_depth: z.int().describe('Verified edges on the chain so far.'),
  strategy: z.enum(['one_sided', 'meet_in_the_middle']),
  path: z.array(z.string()).describe('The verified chain from `from` to the current frontier (ends at `to` on success).'),
  reverse_path: z.array(z.string()).optional().describe('Meeting in the middle: the verified chain from `to`.'),
  budgets: z.record(z.string(), z.number()),
  used: z.record(z.string(), z.number()),
  duration_ms: z.number(),
  events: z.array(visualDegreesStreamEvent),
  result: z.record(z.string(), z.unknown()).optional().describe('S6: `{ path, edges, confidenceMap, graph }`.'),
  failure: z
    .object({
      reason: z.enum(VISUAL_DEGREES_NO_PATH_REASONS).describe('`person_taken_down`: A or B was taken down while the run searched; `not_a_public_figure`: the celebrity recogniser never recognised them in their own photos; `unknown_person`: the local demo world knows nobody by a name asked.'),
      detail: z.string(),
      unknownNames: z.array(z.string()).optional().describe('`unknown_person`: the names asked that the local demo world does not know.'),
      knownNames: z.array(z.string()).optional().describe('`unknown_person`: every name the local demo world knows.'),
    })
    .optional()
    .describe('S7: why no path.'),
  world: visualWorldInfo.optional().describe('The local demo world of invented people the run searches (absent on the real web, and until the first step answered).'),
});
export type VisualDegreesView = z.infer<typeof visualDegreesView>;

/**
 * The view as the gateway reads and documents it: every field optional and unknown ones kept, so a
 * view written before (or after) a field existed still reads. The fields the API has not documented
 * (strategy, reverse path, duration) pass through undocumented.
 */
export const visualDegreesRunView = visualDegreesView.omit({ strategy: true, reverse_path: true, duration_ms: true }).partial().catchall(z.unknown());
