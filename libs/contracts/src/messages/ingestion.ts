import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { problemSignature, SUBSCRIPTION_TIERS, submission, uncertainReading } from './problem.js';

/**
 * Whose problem it is: ingestion sends an image to an external reader (a vision LLM, Mathpix, Google
 * Vision) only where this tenant's policy allows it, within its cap. Absent (older producers): nobody's,
 * so the image is read locally.
 */
export const ingestionTenant = z.object({ userId: z.string().min(1).max(200), subscriptionTier: z.enum(SUBSCRIPTION_TIERS) });

export const NormalizeMedia = defineCommand(
  'ingestion',
  'NormalizeMedia',
  1,
  z.object({ runId: z.uuid(), submission, tenant: ingestionTenant.optional() }),
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
