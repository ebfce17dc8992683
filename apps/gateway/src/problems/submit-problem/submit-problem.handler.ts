import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type CONTENT_SENSITIVITIES, LruMap, retrieveOrGenerateStartInput, type Submission, submission as submissionSchema } from '@openpaw/contracts';
import { z } from 'zod';
import type { BlobStore } from '@openpaw/providers/blob';
import { AdmissionControl, type AdmissionDecision } from '../../admission/admission-control.js';
import { tierOf } from '../../admission/admission-limits.js';
import { BLOB_STORE } from '../../assets/blobs/blob-store.provider.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { type AwaitRunOptions, type FollowedRun, RunSubmitter, type SubmissionRun } from '../../runs/submit/run-submitter.js';
import type { AcceptedImageType } from '../upload/image-upload.js';
import { uploadBlobKey } from '../upload/image-upload.js';
import { RETRIEVE_OR_GENERATE } from '../workflow-result.js';
import { contentDigestOf, problemIdempotencyKey } from './idempotency-key.js';

export type ProblemContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'image';
      readonly bytes: Buffer;
      readonly contentType: AcceptedImageType;
      /** Width × height in megapixels, as its header says (what admission charges while ingestion reads it). */
      readonly megapixels: number;
      readonly filename?: string;
    };

export interface SubmitProblemCommand {
  readonly userId: string;
  /** From the token's `tier` claim; `free` without one. */
  readonly subscriptionTier: string;
  readonly intent: string;
  /** What the client declared; ingestion may still tag the content sensitive (it only tightens). */
  readonly contentSensitivity?: ContentSensitivity;
  /** Read → confirm → solve: an uncertain reading waits for its owner instead of failing (not part of the idempotency key). */
  readonly confirmReading?: boolean;
  readonly content: ProblemContent;
  /** How long to wait for the run to end (0: answer at once). */
  readonly waitMs: number;
  /** Aborts the wait (the client went away). */
  readonly signal?: AbortSignal;
}

export interface SubmitProblemResult {
  readonly runId: string;
  /** The attempt this submission is about: the run's current one, or the one it just started. */
  readonly attemptNo: number;
  /**
   * The run as the projection knows it, when it knows this attempt; `undefined` when the
   * coordinator has not reported the (new or re-started) attempt yet.
   */
  readonly run?: RunProjection;
  /** What the submission did: started a run, re-attempted a failed one, or answered from the projection. */
  readonly action: 'started' | 'reattempted' | 'existing';
  /** The coordinator refused the start (`InputRefused` naming this `StartRun`): no run exists for it. */
  readonly refused?: { readonly reason: string; readonly detail: string };
  /** Admission control refused to start a run now (answer 429 with Retry-After): nothing was sent. */
  readonly overloaded?: Extract<AdmissionDecision, { admitted: false }>;
}

/**
 * The content sensitivity of a submission the client did not mark: `standard`, until ingestion tags
 * the content (personal data, exam-paper markers, explicit content) and the run re-applies its policy.
 */
export const DEFAULT_CONTENT_SENSITIVITY = 'standard';
export type ContentSensitivity = (typeof CONTENT_SENSITIVITIES)[number];

type StartAnswer =
  | { readonly kind: 'accepted'; readonly run: RunProjection }
  | { readonly kind: 'refused'; readonly reason: string; readonly detail: string }
  | { readonly kind: 'unanswered' };

/** The input of a `retrieve_or_generate` run, as the gateway sends it in `StartRun` (the contract's schema). */
export type RetrieveOrGenerateInput = z.input<typeof retrieveOrGenerateStartInput>;

/** The states a submission re-attempts (ADR 0016; the workflow's `retryableFrom`): every other terminal state is final. */
const REATTEMPTED_STATES: readonly string[] = ['FAILED', 'CANCELLED'];
/**
 * Finished runs kept to answer their re-submissions without a read: a few kB each (the view), so a
 * few MB. A run that ended in a state no submission re-attempts never changes again (the workflow
 * has no amendments), so what is kept stays true in every replica.
 */
export const SETTLED_RUNS_KEPT = 512;

function isSettled(run: RunProjection | undefined): run is RunProjection {
  return run !== undefined && run.terminal && !REATTEMPTED_STATES.includes(run.state);
}

/**
 * Submits a problem (spec 01, idempotency): the key is sha256(content digest + user + intent), the
 * submitter looks up the run it names, and the projection of that run decides —
 * unknown: start it; running: nothing to send, report it; SUCCEEDED: the cached result, no re-run;
 * FAILED or CANCELLED (ADR 0016): re-submit with attempt n + 1, so the coordinator re-attempts on the same row.
 * An image is stored in blob storage first (`uploads/<user>/<sha256>`); only its key travels.
 * After a `StartRun` it waits (at most `startWaitMs`) for the coordinator's first answer, so a
 * refused start (invalid input, unknown workflow) is an error now rather than a run that never appears.
 */
@Injectable()
export class SubmitProblemHandler {
  /** Settled runs by run id (`isSettled`): the same homework submitted again is answered from memory. */
  private readonly settled = new LruMap<string, RunProjection>(SETTLED_RUNS_KEPT);

  constructor(
    private readonly runs: RunProjectionStore,
    private readonly submitter: RunSubmitter,
    private readonly bus: RunEventBus,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly admission: AdmissionControl,
  ) {}

  async execute(command: SubmitProblemCommand): Promise<SubmitProblemResult> {
    const contentDigest = contentDigestOf(
      command.content.kind === 'image' ? { kind: 'image', bytes: command.content.bytes } : command.content,
    );
    const idempotencyKey = problemIdempotencyKey(contentDigest, command.userId, command.intent);
    const { run, existing } = await this.lookup(command.userId, idempotencyKey);
    const { runId } = run;

    let result: SubmitProblemResult;
    if (existing === undefined || REATTEMPTED_STATES.includes(existing.state)) {
      // Unknown (or started a moment ago and not reported yet): a repeated StartRun carries the
      // same message id, so JetStream drops it within its duplicate window and the coordinator after.
      // FAILED or CANCELLED: attempt n + 1 is a new message id, and the coordinator re-attempts on the same row.
      const attemptNo = existing === undefined ? 1 : existing.attemptNo + 1;
      const action = existing === undefined ? 'started' : 'reattempted';
      // Overload is answered here, before anything is sent: never a run accepted now and failed later.
      const tier = tierOf(command.subscriptionTier);
      const cost = command.content.kind === 'image' ? { megapixels: command.content.megapixels } : {};
      const admission = await this.admission.admit(command.userId, tier, Date.now(), cost);
      if (!admission.admitted) return { runId, attemptNo, action, overloaded: admission };
      this.admission.started(runId, command.userId, tier, Date.now(), cost);
      // Followed from before its StartRun leaves: every change of this attempt is heard, so waiting for
      // its end needs no read of the projection.
      const followed = command.waitMs <= 0 ? undefined : this.submitter.followRun(runId, this.waitOptions(attemptNo, command));
      const answer = await this.start(command, run, contentDigest, attemptNo);
      switch (answer.kind) {
        case 'refused':
          followed?.cancel();
          return { runId, attemptNo, action, refused: { reason: answer.reason, detail: answer.detail } };
        case 'accepted':
          result = { runId, attemptNo, action, run: answer.run };
          break;
        case 'unanswered':
          result = { runId, attemptNo, action };
          break;
      }
      if (followed !== undefined && result.run?.terminal !== true) return this.wait(result, command, followed);
      followed?.cancel();
    } else {
      result = { runId, attemptNo: existing.attemptNo, run: existing, action: 'existing' };
    }
    if (command.waitMs <= 0 || result.run?.terminal === true) return result;
    return this.wait(result, command);
  }

  /** The submission's run and what is known of it: from memory when it settled, else from the projection. */
  private async lookup(userId: string, idempotencyKey: string): Promise<{ readonly run: SubmissionRun; readonly existing?: RunProjection }> {
    const run = this.submitter.runOf(RETRIEVE_OR_GENERATE, userId, idempotencyKey);
    const known = this.settled.get(run.runId);
    if (known !== undefined && known.userId === userId) return { run, existing: known };
    const looked = await this.submitter.lookup(RETRIEVE_OR_GENERATE, userId, idempotencyKey);
    this.remember(looked.existing);
    return looked;
  }

  private remember(run: RunProjection | undefined): void {
    if (isSettled(run)) this.settled.set(run.runId, run);
  }

  /** Until this attempt ends (a previous attempt's FAILED does not count), for at most the wait asked. */
  private waitOptions(attemptNo: number, command: SubmitProblemCommand): AwaitRunOptions {
    return {
      timeoutMs: command.waitMs,
      until: (run) => run.attemptNo >= attemptNo && run.terminal,
      ...(command.signal === undefined ? {} : { signal: command.signal }),
    };
  }

  /** Waits until this attempt ends or the wait is over (`followed`: since before its StartRun). */
  private async wait(result: SubmitProblemResult, command: SubmitProblemCommand, followed?: FollowedRun): Promise<SubmitProblemResult> {
    const current = (run: RunProjection): boolean => run.attemptNo >= result.attemptNo;
    const outcome = await this.submitter.awaitRun(result.runId, { ...this.waitOptions(result.attemptNo, command), ...(followed === undefined ? {} : { followed }) });
    if (outcome.reached && outcome.run !== undefined) {
      this.remember(outcome.run);
      return { ...result, run: outcome.run };
    }
    // Not ended: the stored row (its attempt start is exact, a live event's is not) if it is this attempt.
    const stored = await this.runs.find(result.runId);
    return stored !== undefined && current(stored) ? { ...result, attemptNo: stored.attemptNo, run: stored } : result;
  }

  private async start(
    command: SubmitProblemCommand,
    run: SubmissionRun,
    contentDigest: string,
    attemptNo: number,
  ): Promise<StartAnswer> {
    const candidate: RetrieveOrGenerateInput = {
      submission: submissionSchema.parse(await this.submissionOf(command)),
      intent: command.intent,
      // An unknown tier claim fails the contract below and is refused like the coordinator would.
      subscriptionTier: command.subscriptionTier as RetrieveOrGenerateInput['subscriptionTier'],
      contentSensitivity: command.contentSensitivity ?? DEFAULT_CONTENT_SENSITIVITY,
      contentDigest,
      ...(command.confirmReading === true ? { confirmReading: true } : {}),
    };
    const checked = retrieveOrGenerateStartInput.safeParse(candidate);
    if (!checked.success) return { kind: 'refused', reason: 'invalid_input', detail: z.prettifyError(checked.error) };
    const input = checked.data;
    const messageId = this.submitter.startMessageIdOf(run.runId, attemptNo);
    // Listen before publishing, so the answer cannot slip past.
    const answer = this.bus.waitFor<StartAnswer>(
      run.runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === messageId ? { kind: 'refused', reason: event.data.reason, detail: event.data.detail } : undefined;
          case 'stateChanged':
            return event.data.attemptNo >= attemptNo ? { kind: 'accepted', run: projectionOf(event.data) } : undefined;
        }
      },
      { timeoutMs: this.config.startWaitMs, ...(command.signal === undefined ? {} : { signal: command.signal }) },
    );
    try {
      await this.submitter.submit({ run, input, ...(attemptNo === 1 ? {} : { attempt: attemptNo }) });
    } catch (error) {
      answer.cancel();
      throw error;
    }
    return (await answer.result) ?? { kind: 'unanswered' };
  }

  private async submissionOf(command: SubmitProblemCommand): Promise<Submission> {
    const { content } = command;
    switch (content.kind) {
      case 'text':
        return { kind: 'text', text: content.text };
      case 'url':
        return { kind: 'url', url: content.url };
      case 'image': {
        const blobKey = uploadBlobKey(command.userId, createHash('sha256').update(content.bytes).digest('hex'));
        // Content-addressed: the same photo uploaded again is already there.
        if ((await this.blobs.head(blobKey)) === undefined) {
          await this.blobs.put(blobKey, content.bytes, {
            contentType: content.contentType,
            metadata: { userId: command.userId, ...(content.filename === undefined ? {} : { filename: content.filename.slice(0, 255) }) },
          });
        }
        return {
          kind: 'upload',
          blobKey,
          contentType: content.contentType,
          byteLength: content.bytes.length,
          ...(content.filename === undefined ? {} : { filename: content.filename.slice(0, 255) }),
        };
      }
    }
  }
}
