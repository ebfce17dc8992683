import { z } from 'zod';

/**
 * The structured steps of a solution, stored by the solve service beside the solution's HTML
 * (`solutions/<runId>/<attempt>.html` → `solutions/<runId>/<attempt>.steps.json`).
 *
 * SHARED FORMAT: written by apps/solve/src/solution/steps-document.ts (apps may not import each other).
 * Change both together; a breaking change is a new `format`. Unknown fields are ignored.
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

/** The steps document of a solution stored under `htmlKey`, or undefined when the key is not an `.html` object. */
export function stepsKeyFor(htmlKey: string): string | undefined {
  return htmlKey.endsWith('.html') ? `${htmlKey.slice(0, -'.html'.length)}.steps.json` : undefined;
}
