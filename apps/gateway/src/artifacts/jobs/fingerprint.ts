import { createHash } from 'node:crypto';
import { ARTIFACT_OPTION_DEFAULTS, type ArtifactOptions, type ArtifactType } from '@openpaw/contracts';

/**
 * The options a job of `type` uses: what the request states (the body's `options` over counts stated
 * in the message), the type's defaults for the rest, and nothing another type would use, so two
 * requests that mean the same job resolve to the same options (and fingerprint).
 */
export function resolveOptions(type: ArtifactType, stated: ArtifactOptions, explicit: ArtifactOptions = {}): ArtifactOptions {
  const merged = { ...stated, ...explicit };
  switch (type) {
    case 'quiz':
      return {
        num_questions: merged.num_questions ?? ARTIFACT_OPTION_DEFAULTS.quiz.num_questions,
        difficulty: merged.difficulty ?? ARTIFACT_OPTION_DEFAULTS.quiz.difficulty,
      };
    case 'flashcards':
      return { num_cards: merged.num_cards ?? ARTIFACT_OPTION_DEFAULTS.flashcards.num_cards };
    case 'summary':
      return { num_points: merged.num_points ?? ARTIFACT_OPTION_DEFAULTS.summary.num_points };
  }
}

/** Source ids as the fingerprint and the job see them: unique and sorted. */
export function sortedSourceIds(sourceIds: readonly string[]): string[] {
  return [...new Set(sourceIds)].sort();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/**
 * Spec 02's request fingerprint, `sha256(user_id + notebook_id + artifact_type + sorted source_ids +
 * options)` as hex, over a JSON array of the parts (unambiguous where plain concatenation is not:
 * `"ab" + "c"` vs `"a" + "bc"`) with the options' keys sorted.
 */
export function artifactFingerprint(userId: string, notebookId: string, type: ArtifactType, sourceIds: readonly string[], options: ArtifactOptions): string {
  const parts = [userId, notebookId, type, sortedSourceIds(sourceIds), canonical(options)];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * The idempotency key of the `sequence`-th job of a fingerprint. The run id derives from it, so
 * concurrent duplicates of a request land on one run; once that job has ended, the next request
 * takes the next sequence number: a new job.
 */
export function artifactJobKey(fingerprint: string, sequence: number): string {
  return `artifact_job:${fingerprint}:${sequence}`;
}
