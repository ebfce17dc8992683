import { OpenPawError, type UncertainReading } from '@openpaw/contracts';
/**
 * Why an input was refused. These are the reason codes of `ingestion.MediaRejected`; the saga turns
 * them into `FAILED` with the code as its error, so the set is closed and every refusal maps to one.
 */
export const REJECTION_REASONS = ['unsupported_type', 'too_large', 'unreadable', 'empty', 'unsafe_url', 'fetch_failed'] as const;

export type RejectionReason = (typeof REJECTION_REASONS)[number];

/**
 * Thrown inside the ingestion domain when an input must be refused. The public entry point
 * (`ingestProblem`) catches it and returns a typed rejection, so callers never see a crash for a bad
 * input; any other error is a bug or an infrastructure failure and is allowed to propagate.
 */
export class MediaRejectedError extends OpenPawError {
  readonly code = 'media_rejected';
  override readonly name = 'MediaRejectedError';

  constructor(
    readonly reason: RejectionReason,
    readonly detail: string,
    /** An `unreadable` image whose text was read but not trusted: the reading and its doubts. */
    readonly reading?: UncertainReading,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export function isMediaRejectedError(error: unknown): error is MediaRejectedError {
  return error instanceof MediaRejectedError;
}
