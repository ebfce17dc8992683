import type { MediaNormalized, MediaRejected, MessageData, ProblemSignature } from '@openpaw/contracts';
import type { StepLogEntry } from '@openpaw/saga';
import type { PolicyEngine } from '../../policy/index.js';
import { RETRIEVE_OR_GENERATE } from '../../shared/workflow-types.js';
import { type DataAt, factsOf, type RetrieveOrGenerateStart } from '../retrieve-or-generate.data.js';
import { awaitReadingConfirmation, awaitsConfirmation } from './awaiting-reading-confirmation.js';
import { ignore, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** Sensitive when the client said so or ingestion tagged it (personal data, exam-paper markers, explicit content). */
export function contentSensitivityOf(request: RetrieveOrGenerateStart, signature: ProblemSignature): RetrieveOrGenerateStart['contentSensitivity'] {
  return request.contentSensitivity === 'sensitive' || signature.contentSensitivity === 'sensitive' ? 'sensitive' : 'standard';
}

/** Guard of INGESTING → RETRIEVING: a signature retrieval can search with (text or an image hash). */
export function signatureComputed(signature: ProblemSignature): boolean {
  return signature.normalizedText.trim() !== '' || signature.imageSha256 !== undefined || signature.phash !== undefined;
}

/** INGESTING → RETRIEVING: the signature computed; the policy tightened when the content was tagged sensitive. */
export function mediaNormalized(
  policies: PolicyEngine,
  outcomes: RetrieveOrGenerateOutcomes,
  run: Run,
  data: DataAt<'ingesting'>,
  e: MessageData<typeof MediaNormalized>,
): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale MediaNormalized');
  if (!signatureComputed(e.signature)) return { outcome: 'refuse', reason: 'problem signature not computed: no normalised text and no image hash' };
  const { request } = data;
  const ingested = { signature: e.signature, mediaType: e.mediaType };
  const sensitivity = contentSensitivityOf(request, e.signature);
  if (sensitivity === request.contentSensitivity) return outcomes.claimProblemKey(run, data, { ...factsOf(data), ...ingested });
  // Tagged sensitive while ingesting: the policy is resolved again with the sensitive layer
  // before anything it governs (retrieval's bars, video) is decided.
  const policy = policies.getPolicy(RETRIEVE_OR_GENERATE, run.userId, request.subscriptionTier, sensitivity);
  const tightened: StepLogEntry = {
    step: 'policy_applied',
    payload: {
      policy,
      workflow_type: RETRIEVE_OR_GENERATE,
      subscription_tier: request.subscriptionTier,
      content_sensitivity: sensitivity,
      reason: 'content tagged sensitive while ingesting',
      sensitivity_reasons: e.signature.sensitivityReasons ?? [],
    },
  };
  return outcomes.claimProblemKey(run, data, { ...factsOf(data), policy, contentSensitivity: sensitivity, ...ingested }, [tightened]);
}

/**
 * INGESTING → FAILED: ingestion rejected the submission; an uncertain reading is kept (the view shows
 * it). INGESTING → AWAITING_READING_CONFIRMATION instead when the owner asked to confirm such a reading.
 */
export function mediaRejected(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'ingesting'>, e: MessageData<typeof MediaRejected>): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale MediaRejected');
  if (awaitsConfirmation(data, e)) return awaitReadingConfirmation(run, data, e);
  const kept = e.reading === undefined || data.reading !== undefined ? data : { ...data, reading: { text: e.reading.text, doubts: e.reading.doubts } };
  return outcomes.fail(run, kept, e.reason, e.detail, 'media_rejected');
}
