import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { GenerateSolution, type MessageData, solutionBlobKeys, SolutionFailed, SolutionGenerated, STEPS_DOCUMENT_CONTENT_TYPE, STEPS_DOCUMENT_FORMAT, type StepsDocument } from '@openpaw/contracts';
import { boundedMathsEngine, type MathsEngine } from '@openpaw/maths/bounded';
import { isReplyOf, type Reply, replyTo } from '@openpaw/messaging';
import { type BlobStore, type LlmClient, RunBudget, StructuredOutputError } from '@openpaw/providers';
import { ClaimHeartbeat, ClaimLostError, type HeartbeatClock, realHeartbeatClock } from '../../claim/claim-heartbeat.js';
import type { SolveSettings } from '../../config.js';
import {
  type AttemptKey,
  type ClaimLease,
  SOLVE_ATTEMPTS,
  SOLVE_BLOBS,
  SOLVE_HEARTBEAT_CLOCK,
  SOLVE_MATHS_ENGINE,
  SOLVE_MATHS_TRANSLATOR,
  SOLVE_LLM,
  SOLVE_SETTINGS,
  type SolveAttemptStore,
  type StoredAnswer,
} from '../../ports.js';
import { buildSolvePrompt, PROMPT_VERSION, solutionAnswerSchema } from '../../solution/prompt.js';
import { checkedByNote, checkModelAnswer, engineAnswer } from '../../solution/maths-engine.js';
import { answerWithTranslation, type MathsTranslation, type MathsTranslator } from '../../solution/maths-translation.js';
import { cannotSolve, failureFromError, incompleteAnswer, type SolveFailure } from '../../solution/solve-failure.js';
import { renderSolutionHtml, SOLUTION_HTML_CONTENT_TYPE } from '../../solution/solution-html.js';

export interface GenerateSolutionCommand {
  /** The command's envelope id: reply ids derive from it. */
  readonly commandId: string;
  readonly data: MessageData<typeof GenerateSolution>;
  /** Who the run is for (the envelope's user): model calls are limited per provider per user (OPENPAW_LLM_CONCURRENCY_PER_KEY). */
  readonly userId?: string;
}

export type GenerateSolutionResult =
  /** Publish this reply (a fresh one, or the stored reply of an attempt already done). */
  | { readonly kind: 'reply'; readonly reply: Reply }
  /** Another delivery of the same attempt is at work; try again after `retryInMs`. */
  | { readonly kind: 'busy'; readonly retryInMs: number };

type AskOutcome = { readonly kind: 'answered'; readonly answer: StoredAnswer } | { readonly kind: 'failed'; readonly failure: SolveFailure; readonly costUsd: number };

/**
 * GenerateSolution: the offline maths engine solves it when it is in its scope; otherwise ask the
 * LLM for a worked solution (checked by the maths engine where it can; a disagreement fails the
 * attempt) (versioned prompt, the command's model and
 * fallback chain, a budget of the run's cap minus what it spent), render it to self-contained HTML,
 * store it with its steps, and answer SolutionGenerated or SolutionFailed.
 *
 * Idempotent per (runId, attempt): the attempt is claimed before the LLM call, the model's answer is
 * kept as soon as it arrives, and the reply is kept before it is published. A redelivered command
 * gets the stored reply (same event id) with no second LLM call or blob write (another command for
 * the same attempt gets the same outcome, addressed to it); a delivery that follows a crash after
 * the answer resumes from the answer, without asking the model again.
 *
 * The claim is a short lease (`claimLeaseMs`) that the live delivery renews (`ClaimHeartbeat`), so a
 * crashed holder's attempt is taken over within seconds. A delivery that cannot renew in time (its
 * claim taken over, or PostgreSQL out of reach) abandons: the model call is aborted, nothing more
 * is written or published, and the command is redelivered (`ClaimLostError`). Keeping the answer
 * and completing match the lease token, so a holder whose claim was taken over never records its
 * answer or reply.
 */
@Injectable()
export class GenerateSolutionHandler {
  constructor(
    @Inject(SOLVE_LLM) private readonly llm: LlmClient,
    @Inject(SOLVE_BLOBS) private readonly blobs: BlobStore,
    @Inject(SOLVE_ATTEMPTS) private readonly attempts: SolveAttemptStore,
    @Inject(SOLVE_SETTINGS) private readonly settings: SolveSettings,
    @Optional() @Inject(SOLVE_HEARTBEAT_CLOCK) private readonly clock: HeartbeatClock = realHeartbeatClock,
    @Optional() @Inject(SOLVE_MATHS_ENGINE) private readonly maths: MathsEngine = boundedMathsEngine(),
    @Optional() @Inject(SOLVE_MATHS_TRANSLATOR) private readonly translator?: MathsTranslator,
  ) {}

  /** Claims this process failed to give back (by attempt), to give back before its next claim. */
  private readonly unreleased = new Map<string, ClaimLease>();

  async execute(command: GenerateSolutionCommand): Promise<GenerateSolutionResult> {
    const { data } = command;
    const key: AttemptKey = { runId: data.runId, attempt: data.attempt };
    await this.giveBackLeftover(key);
    const askedAt = this.clock.now();
    const claim = await this.attempts.claim(key, command.commandId, this.settings.claimLeaseMs);
    switch (claim.kind) {
      case 'done':
        return { kind: 'reply', reply: readdressed(claim.reply, command.commandId) };
      case 'busy':
        return { kind: 'busy', retryInMs: claim.retryInMs };
      case 'claimed':
        break;
    }

    const { lease } = claim;
    const terms = { leaseMs: this.settings.claimLeaseMs, renewEveryMs: this.settings.claimRenewEveryMs };
    const heartbeat = new ClaimHeartbeat(() => this.attempts.renew(key, lease, terms.leaseMs), terms, this.clock, askedAt);
    try {
      return await this.solveClaimed(command, { key, lease, heartbeat }, claim.answer);
    } catch (error) {
      heartbeat.stop();
      await this.giveBack(key, lease);
      throw error;
    } finally {
      heartbeat.stop();
    }
  }

  /** The attempt, claimed by this delivery: answered, checked, rendered and stored, then its reply kept. */
  private async solveClaimed(command: GenerateSolutionCommand, held: HeldClaim, keptAnswer: StoredAnswer | undefined): Promise<GenerateSolutionResult> {
    const { data } = command;
    const { key } = held;
    let answer = keptAnswer;
    // The maths engine first: a problem it solves needs no model (cost 0, a few ms; a translation's cost when one is configured).
    let translationCostUsd = 0;
    if (this.settings.mathsEngine === 'first' && answer === undefined) {
      const first = await this.engineFirst(data, command.userId, held.heartbeat);
      ({ answer, translationCostUsd } = first);
    }
    if (answer === undefined) {
      // The translation's cost counts against the run's cap and in what the answer cost.
      const outcome = await this.ask({ ...data, spentUsd: data.spentUsd + translationCostUsd }, command.userId, held.heartbeat);
      if (outcome.kind === 'failed') return this.finish(held, failedReply(command, outcome.failure, outcome.costUsd + translationCostUsd));
      answer = costingMore(outcome.answer, translationCostUsd);
    }

    const { value } = answer;
    let { provenance } = answer;
    if (!value.can_solve) return this.finish(held, failedReply(command, cannotSolve(value.reason), provenance.costUsd));
    const finalAnswer = value.final_answer?.trim() ?? '';
    const steps = value.steps.filter((s) => s.title.trim() !== '' || s.detail.trim() !== '');
    if (steps.length === 0 || finalAnswer === '') {
      const what = steps.length === 0 ? 'gave no steps' : 'gave no final answer';
      const failure = incompleteAnswer(what, await this.attempts.countInvalidOutputs(data.runId, data.attempt));
      return this.finish(held, failedReply(command, failure, provenance.costUsd));
    }
    if (keptAnswer === undefined && !(await this.attempts.saveAnswer(key, held.lease, answer))) throw claimTakenOver();
    const checked = await checkModelAnswer(data.signature.normalizedText, finalAnswer, provenance, await this.attempts.countInvalidOutputs(data.runId, data.attempt), this.settings.mathsBudget, this.maths);
    if (checked.kind === 'rejected') return this.finish(held, failedReply(command, checked.failure, provenance.costUsd));
    provenance = checked.provenance;

    const stepsDocument: StepsDocument = {
      format: STEPS_DOCUMENT_FORMAT,
      problem: data.signature.normalizedText,
      subject: data.signature.topicTags.subject,
      steps: steps.map((s) => ({ title: s.title.trim(), detail: s.detail.trim() })),
      finalAnswer,
      model: provenance.model,
      promptVersion: provenance.promptVersion,
    };
    const html = await renderSolutionHtml({ ...stepsDocument, ...checkedByNote(provenance) });
    const keys = solutionBlobKeys(data.runId, data.attempt);
    const metadata = { runId: data.runId, attempt: String(data.attempt), model: provenance.model, promptVersion: provenance.promptVersion };
    // Steps first: once the HTML exists, its sidecar does too. Not once the claim may be another
    // delivery's: its blobs (same keys) must not be overwritten by this one's.
    held.heartbeat.assertHeld();
    await this.blobs.put(keys.steps, JSON.stringify(stepsDocument), { contentType: STEPS_DOCUMENT_CONTENT_TYPE, metadata });
    held.heartbeat.assertHeld();
    await this.blobs.put(keys.html, html, { contentType: SOLUTION_HTML_CONTENT_TYPE, metadata });

    return this.finish(
      held,
      replyTo(command.commandId, SolutionGenerated, {
        runId: data.runId,
        commandId: command.commandId,
        attempt: data.attempt,
        storageKey: keys.html,
        contentSha256: createHash('sha256').update(html, 'utf8').digest('hex'),
        finalAnswer,
        stepCount: stepsDocument.steps.length,
        provenance,
      }),
    );
  }

  /**
   * This delivery failed (PostgreSQL or blob storage away, an unexpected error): its claim is given
   * back so the redelivery takes over at once, not after the lease (the deadline + 30 s). When even
   * that fails, this process gives it back before its next claim of the attempt.
   */
  private async giveBack(key: AttemptKey, lease: ClaimLease): Promise<void> {
    try {
      await this.attempts.release(key, lease);
      this.unreleased.delete(attemptId(key));
    } catch {
      this.unreleased.set(attemptId(key), lease);
    }
  }

  /** A claim this process could not give back earlier, given back now (best effort). */
  private async giveBackLeftover(key: AttemptKey): Promise<void> {
    const lease = this.unreleased.get(attemptId(key));
    if (lease !== undefined) await this.giveBack(key, lease);
  }

  /**
   * The engine's answer, if it solves the problem. With a translation model configured, the model's
   * translation of the words is held against the engine's reader (agreeing: checked; not: labelled
   * "translation unverified"); a translation that fails (the model away, over budget) leaves the engine
   * reading the words alone.
   */
  private async engineFirst(data: MessageData<typeof GenerateSolution>, userId: string | undefined, heartbeat: ClaimHeartbeat): Promise<{ answer: StoredAnswer | undefined; translationCostUsd: number }> {
    const problem = data.signature.normalizedText;
    const startedAt = performance.now();
    if (this.translator === undefined) return { answer: await engineAnswer(problem, this.settings.mathsBudget, this.maths, startedAt), translationCostUsd: 0 };
    const budget = new RunBudget(data.runId, data.costCapUsd, data.spentUsd);
    let translation: MathsTranslation;
    try {
      heartbeat.assertHeld();
      translation = await this.translator.translate(problem, {
        budget,
        signal: AbortSignal.any([AbortSignal.timeout(this.settings.deadlineMs), heartbeat.signal]),
        ...(userId === undefined ? {} : { concurrencyKey: userId }),
      });
    } catch (error) {
      if (error instanceof ClaimLostError) throw error;
      const billed = Math.max(0, budget.spentUsd - data.spentUsd, error instanceof StructuredOutputError ? error.costUsd : 0);
      const answer = await engineAnswer(problem, this.settings.mathsBudget, this.maths, startedAt);
      return answer === undefined ? { answer, translationCostUsd: billed } : { answer: costingMore(answer, billed), translationCostUsd: 0 };
    }
    const answer = await answerWithTranslation(problem, translation, this.settings.mathsBudget, this.maths, startedAt);
    // Counted once: in the engine's answer when it gives one, else added to the models'.
    return { answer, translationCostUsd: answer === undefined ? translation.costUsd : 0 };
  }

  private async ask(data: MessageData<typeof GenerateSolution>, userId: string | undefined, heartbeat: ClaimHeartbeat): Promise<AskOutcome> {
    const budget = new RunBudget(data.runId, data.costCapUsd, data.spentUsd);
    const deadline = AbortSignal.timeout(this.settings.deadlineMs);
    heartbeat.assertHeld();
    try {
      const result = await this.llm.structured(buildSolvePrompt(data.signature), solutionAnswerSchema, {
        model: data.model,
        fallbackModels: data.fallbackModels,
        maxTokens: this.settings.maxTokens,
        budget,
        // Past the deadline the attempt answers `timeout`; once the claim is lost, nobody answers here.
        signal: AbortSignal.any([deadline, heartbeat.signal]),
        ...(userId === undefined ? {} : { concurrencyKey: userId }),
        ...(this.settings.llmTimeoutMs === undefined ? {} : { timeoutMs: this.settings.llmTimeoutMs }),
      });
      return {
        kind: 'answered',
        answer: {
          value: result.value,
          provenance: {
            model: result.model,
            promptVersion: PROMPT_VERSION,
            inputTokens: result.usage.inputTokens,
            outputTokens: result.usage.outputTokens,
            costUsd: result.costUsd,
            latencyMs: result.latencyMs,
          },
        },
      };
    } catch (error) {
      heartbeat.assertHeld();
      const earlierInvalidOutputs = await this.attempts.countInvalidOutputs(data.runId, data.attempt);
      const failure = failureFromError(error, { deadlineExceeded: deadline.aborted, earlierInvalidOutputs });
      if (failure === undefined) throw error;
      // What this attempt paid: replies that failed validation were still billed.
      const billed = Math.max(budget.spentUsd - data.spentUsd, error instanceof StructuredOutputError ? error.costUsd : 0);
      return { kind: 'failed', failure, costUsd: Math.max(0, billed) };
    }
  }

  /**
   * Keeps the reply, then it may be published. Compare-and-set on the lease token: a reply is kept
   * (and published) only by the delivery that holds the claim at that moment, whatever its heartbeat
   * last saw, so at most one reply is ever kept for the attempt.
   */
  private async finish(held: HeldClaim, reply: Reply): Promise<GenerateSolutionResult> {
    if (!(await this.attempts.complete(held.key, held.lease, reply))) throw claimTakenOver();
    return { kind: 'reply', reply };
  }
}

/** The answer with a cost paid on the way to it (a translation) added to its own. */
function costingMore(answer: StoredAnswer, costUsd: number): StoredAnswer {
  return costUsd === 0 ? answer : { ...answer, provenance: { ...answer.provenance, costUsd: answer.provenance.costUsd + costUsd } };
}

/** The claim this delivery holds, and the heartbeat that keeps it. */
interface HeldClaim {
  readonly key: AttemptKey;
  readonly lease: ClaimLease;
  readonly heartbeat: ClaimHeartbeat;
}

function claimTakenOver(): ClaimLostError {
  return new ClaimLostError('the claim on the attempt is no longer this delivery\'s: another delivery took it over after its lease expired');
}

/**
 * The stored reply, as the answer to `commandId`: verbatim for a redelivery of the command that
 * produced it; for another command of the same (run, attempt), the same outcome addressed to that
 * command (its own deterministic id and `commandId`), so its sender recognises the answer.
 */
function attemptId(key: AttemptKey): string {
  return `${key.runId}/${key.attempt}`;
}

function readdressed(reply: Reply, commandId: string): Reply {
  if (isReplyOf(reply, SolutionGenerated)) return reply.data.commandId === commandId ? reply : replyTo(commandId, SolutionGenerated, { ...reply.data, commandId });
  if (isReplyOf(reply, SolutionFailed)) return reply.data.commandId === commandId ? reply : replyTo(commandId, SolutionFailed, { ...reply.data, commandId });
  throw new Error(`an attempt's kept reply is a ${reply.message.subject}, neither SolutionGenerated nor SolutionFailed`);
}

function failedReply(command: GenerateSolutionCommand, failure: SolveFailure, costUsd: number): Reply {
  return replyTo(command.commandId, SolutionFailed, {
    runId: command.data.runId,
    commandId: command.commandId,
    attempt: command.data.attempt,
    errorCode: failure.errorCode,
    retryable: failure.retryable,
    detail: failure.detail,
    costUsd,
  });
}
