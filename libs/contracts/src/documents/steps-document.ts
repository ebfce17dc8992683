import { z } from 'zod';

/**
 * The structured steps of a solution: a data contract between the solve service, which writes it
 * beside the solution's HTML (`solutions/<runId>/<attempt>.html` → `.steps.json`), and the assets
 * service, which renders the solution video from it without parsing HTML. Defined once, here; a
 * breaking change is a new `format`. Readers ignore unknown fields.
 */
export const STEPS_DOCUMENT_FORMAT = 'openpaw.solution-steps.v1';
export const STEPS_DOCUMENT_CONTENT_TYPE = 'application/json';

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

/** Blob keys of one attempt's solution: `solutions/<runId>/<attempt>.html` and its `.steps.json`. */
export function solutionBlobKeys(runId: string, attempt: number): { readonly html: string; readonly steps: string } {
  const base = `solutions/${runId}/${attempt}`;
  return { html: `${base}.html`, steps: `${base}.steps.json` };
}

/** The steps document of a solution stored under `htmlKey`, or undefined when the key is not an `.html` object. */
export function stepsKeyFor(htmlKey: string): string | undefined {
  return htmlKey.endsWith('.html') ? `${htmlKey.slice(0, -'.html'.length)}.steps.json` : undefined;
}
