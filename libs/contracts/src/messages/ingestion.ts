import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { problemSignature, submission, uncertainReading } from './problem.js';

export const NormalizeMedia = defineCommand(
  'ingestion',
  'NormalizeMedia',
  1,
  z.object({ runId: z.uuid(), submission }),
  'Ingest a submission: fetch/normalise media, hash, OCR, tag; answers MediaNormalized or MediaRejected.',
);

export const MediaNormalized = defineEvent(
  'ingestion',
  'MediaNormalized',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    mediaType: z.enum(['text', 'image']),
    signature: problemSignature,
    /** Blob key of the normalised image, for image submissions. */
    normalizedMediaKey: z.string().optional(),
  }),
  'A submission was normalised; carries the problem signature.',
);

export const mediaRejectionReason = z.enum(['unsupported_type', 'too_large', 'unreadable', 'empty', 'unsafe_url', 'fetch_failed']);

export const MediaRejected = defineEvent(
  'ingestion',
  'MediaRejected',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    reason: mediaRejectionReason,
    detail: z.string(),
    /** `unreadable` images whose text was read but not trusted: the reading and what it doubted (absent from older producers). */
    reading: uncertainReading.optional(),
  }),
  'A submission could not be ingested, with a reason code.',
);
