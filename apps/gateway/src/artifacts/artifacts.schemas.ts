import { artifactOptions, freeText, notebookId } from '@openpaw/contracts';
import { z } from 'zod';

/** Longest `?wait` (seconds) of `POST /notebooks/:id/sources`. */
export const MAX_SOURCE_WAIT_SECONDS = 60;

/** `POST /ai/chat` */
export const chatBody = z.object({
  message: freeText().trim().min(1, 'message is empty').max(8_000).describe('What the user says: an artifact request ("Create a quiz on cells") or a question.'),
  session_id: notebookId.describe('The notebook (chat session) whose sources ground the answer or the artifact.'),
  source_ids: z.array(z.uuid()).max(100).optional().describe('Only these sources of the notebook (default: all of them).'),
  options: artifactOptions.optional().describe('Artifact options (num_questions, difficulty, num_cards, num_points); part of the job fingerprint.'),
});
export type ChatBody = z.output<typeof chatBody>;

/** `POST /ai/chat` in artifact mode (spec 02). */
export const artifactJobCreated = z.object({
  type: z.literal('artifact_job_created'),
  job_id: z.uuid(),
  status: z.string().describe('`pending` for a new job; the current status when an active job with the same fingerprint was returned.'),
  artifact_type: z.enum(['quiz', 'flashcards', 'summary']),
  message: z.string(),
  snapshot: z
    .enum(['captured', 'deferred'])
    .optional()
    .describe(
      'A new job only: `captured`, the sources\' retrieval snapshot was taken with this request; `deferred`, the artifacts service did not ' +
        'answer in time, so the job was accepted without one and captures it as its first step, as of this request\'s time (sources ' +
        'indexed later are left out: the same snapshot as one taken with the request).',
    ),
});

/** `POST /ai/chat` in chat mode. */
export const chatResponse = z.object({
  type: z.literal('chat_response'),
  session_id: z.string(),
  message: z.string(),
  citations: z.array(z.object({ chunk_id: z.string(), source_id: z.string() })),
  model: z.string(),
});

export const artifactIdParams = z.object({ id: z.uuid() });

export const notebookParams = z.object({ notebookId });
export const notebookSourceParams = z.object({ notebookId, sourceId: z.uuid() });

const sourceFields = {
  title: freeText().trim().min(1).max(300).optional().describe('A title (default: from the document).'),
};

const sourceJsonObject = z.object({
  text: freeText().trim().min(1, 'text is empty').max(200_000).optional().describe('The source as text.'),
  url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).max(2048).optional().describe('A web page, text or PDF document to fetch.'),
  ...sourceFields,
});

/** `POST /notebooks/:id/sources` JSON body: exactly one of `text` or `url` (or upload a file as multipart `file`). */
export const sourceJsonBody = z.preprocess(
  (value) => value ?? {},
  sourceJsonObject.superRefine((body, ctx) => {
    if (body.text === undefined && body.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'give the source as `text` or `url` (or upload a file as multipart `file`)' });
    } else if (body.text !== undefined && body.url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'give `text` or `url`, not both' });
    }
  }),
);
export const sourceJsonBodyDoc = sourceJsonObject;
export const sourceMultipartFields = z.object(sourceFields);

export const sourceQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_SOURCE_WAIT_SECONDS)
    .optional()
    .describe(`Seconds (0..${MAX_SOURCE_WAIT_SECONDS}) to wait for indexing (default 15): 201 once indexed, 202 if still pending.`),
});

export const sourceResource = z.object({
  source_id: z.uuid(),
  notebook_id: z.string(),
  status: z.enum(['indexed', 'pending']),
  title: z.string().optional(),
  kind: z.enum(['text', 'url', 'file']).optional(),
  chunk_ids: z.array(z.string()).optional().describe('Stable: the same content keeps its chunk ids.'),
  embedding_version: z.string().optional(),
  characters: z.int().optional(),
  content_sha256: z.string().optional(),
});
export type SourceResource = z.infer<typeof sourceResource>;

export const sourceRejectedBody = z.object({
  error: z.literal('source_rejected'),
  reason: z.string(),
  message: z.string(),
  source_id: z.uuid(),
});
