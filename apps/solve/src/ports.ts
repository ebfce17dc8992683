import type { solutionProvenance } from '@openpaw/contracts';
import type { Reply } from '@openpaw/messaging';
import type { z } from 'zod';
import type { SolutionAnswer } from './solution/prompt.js';

/** Injection tokens of the solve service's ports. */
export const SOLVE_LLM = Symbol('openpaw.solve.llm');
export const SOLVE_BLOBS = Symbol('openpaw.solve.blobs');
export const SOLVE_ATTEMPTS = Symbol('openpaw.solve.attempts');
export const SOLVE_SETTINGS = Symbol('openpaw.solve.settings');
/** The claim heartbeat's clock (optional: the real one unless a test supplies its own). */
export const SOLVE_HEARTBEAT_CLOCK = Symbol('openpaw.solve.heartbeatClock');
/** The maths engine the handler solves and checks with (default: the process's bounded engine, on worker threads). */
export const SOLVE_MATHS_ENGINE = Symbol('openpaw.solve.mathsEngine');
/** The model that translates a worded problem into maths for the engine (optional: none unless `OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL` names one). */
export const SOLVE_MATHS_TRANSLATOR = Symbol('openpaw.solve.mathsTranslator');

export type SolutionProvenance = z.infer<typeof solutionProvenance>;

/** The idempotency key of a solve: one answer per (run, attempt). */
export interface AttemptKey {
  readonly runId: string;
  readonly attempt: number;
}

/** The model's validated answer with its provenance, kept so a retried delivery never asks again. */
export interface StoredAnswer {
  readonly value: SolutionAnswer;
  readonly provenance: SolutionProvenance;
}

/**
 * The lease token of one claim (a fresh uuid per claim or takeover): renewing, keeping the answer,
 * completing and giving back all match it, so a delivery acts only on its own claim, never on one
 * another delivery took over.
 */
export type ClaimLease = string;

export type AttemptClaim =
  /** This delivery owns the attempt; `answer` is set when an earlier delivery already got the model's answer. */
  | { readonly kind: 'claimed'; readonly answer: StoredAnswer | undefined; readonly lease: ClaimLease }
  /** The attempt is finished: republish its reply. */
  | { readonly kind: 'done'; readonly reply: Reply }
  /** Another delivery holds a live claim on the attempt; look again later. */
  | { readonly kind: 'busy'; readonly retryInMs: number };

/** The `solve` schema's record of attempts (table `solution_attempts`). */
export interface SolveAttemptStore {
  /** Claims the attempt for `leaseMs` unless it is done or another delivery's lease has not expired. */
  claim(key: AttemptKey, commandId: string, leaseMs: number): Promise<AttemptClaim>;
  /**
   * The holder's heartbeat: its lease now ends `leaseMs` from now. False when the claim is no longer
   * this lease's (taken over after it expired, given back, or the attempt done): the holder must stop.
   */
  renew(key: AttemptKey, lease: ClaimLease, leaseMs: number): Promise<boolean>;
  /**
   * Gives a failed delivery's claim back, so the next delivery takes the attempt at once instead of
   * waiting for the lease to run out (a kept answer stays). A claim taken since by another delivery
   * is left alone.
   */
  release(key: AttemptKey, lease: ClaimLease): Promise<void>;
  /** Keeps the model's answer, if `lease` still holds the claim (false, and nothing written, if not). */
  saveAnswer(key: AttemptKey, lease: ClaimLease, answer: StoredAnswer): Promise<boolean>;
  /**
   * Records the final reply (and the failure's code, if any) if `lease` still holds the claim: the
   * attempt is done. False, and nothing written, when the claim is no longer this lease's.
   */
  complete(key: AttemptKey, lease: ClaimLease, reply: Reply): Promise<boolean>;
  /** How many attempts of the run before `attempt` ended in `invalid_output`. */
  countInvalidOutputs(runId: string, beforeAttempt: number): Promise<number>;
}
