import { createHash } from 'node:crypto';
import { isTextDominant, type ProblemSignature } from '@openpaw/contracts';
import { z } from 'zod';

/**
 * Spec 01's idempotency key, `sha256(problem_signature + user_id + intent)`, claimed after INGESTING
 * (ADR 0016). The signature part is the problem as ingestion canonicalised it, so the same problem
 * photographed again or typed with other spacing, symbols or punctuation is the same key: the
 * normalised text's sha256 when there is text and no image that carries more than it (retrieval's
 * rule, `isTextDominant`), else the image's pHash, else its bytes' sha256: two figures captioned "Find
 * x." are two problems. Parts are length-prefixed, so no two triples give the same input to the hash.
 */
export function problemKeyOf(signature: ProblemSignature, userId: string, intent: string | undefined): string {
  const hash = createHash('sha256');
  for (const part of [canonicalSignatureOf(signature), userId, intent ?? '']) hash.update(`${part.length}:${part}\n`);
  return hash.digest('hex');
}

function canonicalSignatureOf(signature: ProblemSignature): string {
  if (signature.normalizedText.trim() !== '' && isTextDominant(signature) !== false) return `text:${signature.textSha256}`;
  if (signature.phash !== undefined) return `phash:${signature.phashVersion ?? ''}:${signature.phash}`;
  return `image:${signature.imageSha256 ?? ''}`;
}

/** What a run answered from an earlier one reads of that run's view (its own workflow's, spec 01 WorkflowResult). */
export const earlierResultSchema = z.object({
  outcome: z.enum(['hit', 'new']),
  output: z.object({ asset_version_id: z.uuid(), video_pending: z.boolean().optional(), is_approximate: z.boolean().optional() }),
});
