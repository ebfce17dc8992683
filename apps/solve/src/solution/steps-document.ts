import { z } from 'zod';

/**
 * The structured steps of a solution, stored beside its HTML as `<key without .html>.steps.json`.
 * The assets service reads it to render the solution video (it finds it from the solution asset
 * version's storage key), so it never has to parse HTML.
 *
 * SHARED FORMAT: apps/assets/src/video/steps-document.ts reads the same document (apps may not import
 * each other). Change both together; a breaking change is a new `format`.
 */
export const STEPS_DOCUMENT_FORMAT = 'openpaw.solution-steps.v1';

export const stepsDocumentSchema = z.object({
  format: z.literal(STEPS_DOCUMENT_FORMAT),
  problem: z.string(),
  subject: z.string(),
  steps: z.array(z.object({ title: z.string(), detail: z.string() })),
  finalAnswer: z.string(),
  model: z.string(),
  promptVersion: z.string(),
});
export type StepsDocument = z.infer<typeof stepsDocumentSchema>;

export const STEPS_DOCUMENT_CONTENT_TYPE = 'application/json';

/** Blob keys of one attempt's solution: `solutions/<runId>/<attempt>.html` and its `.steps.json`. */
export function solutionBlobKeys(runId: string, attempt: number): { readonly html: string; readonly steps: string } {
  const base = `solutions/${runId}/${attempt}`;
  return { html: `${base}.html`, steps: `${base}.steps.json` };
}
