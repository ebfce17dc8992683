import type { AnyBatchCommandDefinition, AnyMessageDefinition, Envelope, MessageData } from '@openpaw/contracts';

export type JsonObject = Record<string, unknown>;

/** A run as a definition sees it: read-only, no I/O behind it. */
export interface RunSnapshot<S extends string = string, D = unknown> {
  readonly id: string;
  readonly type: string;
  readonly state: S;
  readonly attemptNo: number;
  readonly userId: string;
  readonly idempotencyKey: string;
  readonly parentRunId: string | null;
  readonly data: D;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The run that holds an idempotency key another run claimed, as it was when the claim was answered (or when it ended). */
export interface KeyHolder {
  readonly runId: string;
  readonly state: string;
  readonly attemptNo: number;
  readonly terminal: boolean;
  /** Its public view (the definition's `view`), e.g. the result a claimant answers with. */
  readonly view: JsonObject;
}

/**
 * The answer to a `claimKey` effect, applied in the same transaction as the decision that asked:
 * `claimed` (this run holds the key now), or `held` by another run. A claimant told `held` by a run
 * still going is told again, `held` with the holder `terminal`, when that run ends.
 */
export type ClaimInput = { readonly kind: 'claim'; readonly key: string } & (
  | { readonly outcome: 'claimed' }
  | { readonly outcome: 'held'; readonly holder: KeyHolder }
);

/** Everything that can happen to a run is an input; each is applied atomically and exactly once. */
export type SagaInput =
  | ClaimInput
  | { readonly kind: 'start'; readonly input: JsonObject }
  | { readonly kind: 'event'; readonly envelope: Envelope }
  | { readonly kind: 'timer'; readonly name: string; readonly payload: JsonObject }
  | { readonly kind: 'cancel'; readonly userId: string; readonly reason?: string }
  | { readonly kind: 'human'; readonly userId: string; readonly inputType: string; readonly payload: JsonObject }
  | {
      readonly kind: 'child';
      readonly childRunId: string;
      readonly workflowType: string;
      readonly state: string;
      readonly view: JsonObject;
    };

/**
 * Step timeout of a sent command (or batch item): re-send the same command (same envelope id, which
 * the service dedups) every `afterMs` while the run is still in this state, `maxResends` times; then
 * the definition gets a `timer` input named `timeout:<key>`.
 */
export interface SendTimeout {
  readonly afterMs: number;
  readonly maxResends: number;
  /**
   * Where the timeout runs from: `pickup` (default; flow control, ADR 0010) waits while the command
   * is queued in its lane; `send` times out regardless, for a step the run must not wait for (an
   * index the run can defer to the background).
   */
  readonly from?: 'pickup' | 'send';
}

/** One item of a `sendBatch` effect: its step key (its item id derives from it, as a `send`'s command id does), its fields, its timeout. */
export interface BatchItemEffect {
  readonly key: string;
  readonly data: JsonObject;
  readonly timeout?: SendTimeout;
}

/** Side effects a decision asks for. The coordinator performs them through the outbox and timers. */
export type Effect =
  | {
      /** A command to the owning service. `key` names the step; its id is derived from (run, attempt, key). */
      readonly type: 'send';
      readonly message: AnyMessageDefinition;
      readonly data: unknown;
      readonly key: string;
      /**
       * Step timeout: re-send the same command (same envelope id, which the service dedups) every
       * `afterMs` while the run is still in this state, `maxResends` times; then the definition gets a
       * `timer` input named `timeout:<key>`.
       */
      readonly timeout?: SendTimeout;
    }
  /**
   * N commands of one kind to one service as one batched command (`defineBatchCommand`, ADR 0025).
   * Each item is what a `send` with its `key` would be: its id (`itemId`) is `commandIdFor(key)`, so
   * replies match as they would, and it has its own step timer (`timeout`), re-sent as a one-item
   * batch under the same item id.
   */
  | { readonly type: 'sendBatch'; readonly message: AnyBatchCommandDefinition; readonly shared: JsonObject; readonly items: readonly BatchItemEffect[] }
  | { readonly type: 'publish'; readonly message: AnyMessageDefinition; readonly data: unknown; readonly key: string }
  | { readonly type: 'setTimer'; readonly name: string; readonly afterMs: number; readonly payload?: JsonObject }
  | { readonly type: 'clearTimer'; readonly name: string }
  /** A child run; the parent receives a `child` input when it reaches a terminal state. */
  | { readonly type: 'startChild'; readonly workflowType: string; readonly key: string; readonly input: JsonObject }
  /** A fire-and-forget run (video, reindex): nothing reports back. */
  | { readonly type: 'startBackground'; readonly workflowType: string; readonly key: string; readonly input: JsonObject }
  /** Cancels the child run started under `key` (a `CancelRun` on the owner's behalf); a finished child refuses it. */
  | { readonly type: 'cancelChild'; readonly workflowType: string; readonly key: string; readonly reason: string }
  /**
   * Claims an idempotency key for this run, unique per (workflow type, user, key), in the transaction
   * that applies this decision; the run then gets a `claim` input (see `ClaimInput`). A holder in one
   * of the definition's `keyClaims.releasedIn` states gives the key up to the claimant. Needs
   * `keyClaims` on the definition.
   */
  | { readonly type: 'claimKey'; readonly key: string };

/** An extra `workflow_step_logs` row (e.g. `policy_applied`), beside the row of the transition itself. */
export interface StepLogEntry {
  readonly step: string;
  readonly payload?: JsonObject;
}

export type Decision<S extends string, D> =
  | {
      readonly outcome: 'transition';
      readonly to: S;
      readonly data: D;
      /** step_name of the transition's log row; defaults to the input's name. */
      readonly step?: string;
      readonly logs?: readonly StepLogEntry[];
      readonly effects?: readonly Effect[];
    }
  /** Data, logs or effects without a state change (progress, a retry in place). */
  | { readonly outcome: 'stay'; readonly data: D; readonly step?: string; readonly logs?: readonly StepLogEntry[]; readonly effects?: readonly Effect[] }
  /** Irrelevant here (a late or stale event): recorded, nothing changes. */
  | { readonly outcome: 'ignore'; readonly reason: string }
  /** A guard failed: refused, logged and reported as `InputRefused`. */
  | { readonly outcome: 'refuse'; readonly reason: string };

export interface DecideContext {
  readonly now: Date;
}

/**
 * A workflow as data plus pure functions (no I/O): states, the transition table exactly as the spec's
 * TRANSITIONS, terminal states, and `decide` returning the next state, data and effects.
 */
export interface SagaDefinition<S extends string = string, D = unknown> {
  readonly type: string;
  readonly states: readonly S[];
  readonly initial: S;
  /** Allowed targets per state; a state missing here (or terminal) allows nothing. */
  readonly transitions: Readonly<Partial<Record<S, readonly S[]>>>;
  readonly terminal: readonly S[];
  /** Target of an owner's cancel, where the table allows it from the current state. */
  readonly cancelledState?: S;
  /** A terminal state from which a new `start` with the same key re-attempts (attempt_no + 1). */
  readonly retryableFrom?: readonly S[];
  /**
   * Terminal states a human input may reopen, keeping the run's data and attempt (spec 05: retry a
   * research from `failed`): per state, the `inputType`s it still answers. Every other input to it is
   * refused or ignored as in any terminal state; its outgoing transitions are its table rows'.
   */
  readonly reopenableBy?: Readonly<Partial<Record<S, readonly string[]>>>;
  /**
   * Amendments: events a finished run still takes, to change its data only (e.g. redacting a person
   * after a takedown). In a terminal state `decide` sees them, and only a `stay` (or an ignore or
   * refusal) is applied: the state never changes, and a `transition` is refused. In other states they
   * are ordinary inputs. Routing them to runs is the caller's (they name no run).
   */
  readonly amendedBy?: readonly AnyMessageDefinition[];
  /**
   * Which runs an amendment concerns: a string the JSON of their data contains (e.g. the id of the
   * person taken down). The coordinator hands the amendment to each run of this workflow whose data
   * holds it, finished or running; without it, amendments reach no run.
   */
  amendmentConcerns?(envelope: Envelope): string | undefined;
  /**
   * An owner's cancel (the engine's, see `cancelledState`): the run's data and effects on the way to
   * the cancelled state (default: data unchanged, nothing sent), e.g. cancel the child run it waits
   * for, so that work stops too. Pure, like `decide`.
   */
  onCancel?(run: RunSnapshot<S, D>, reason: string | undefined, context: DecideContext): { readonly data: D; readonly effects?: readonly Effect[] };
  /**
   * This workflow claims idempotency keys (`claimKey`): the terminal states in which a run gives its
   * keys up to the next claimant (spec 01: a FAILED run's key is re-run, not answered from).
   */
  readonly keyClaims?: { readonly releasedIn: readonly S[] };
  /** Events from services this workflow consumes (routed to runs by correlation id). */
  readonly inputs: readonly AnyMessageDefinition[];
  /** Initial data from the start input; throw to refuse an invalid start. */
  init(input: JsonObject, run: Pick<RunSnapshot, 'id' | 'userId' | 'attemptNo'>): D;
  decide(run: RunSnapshot<S, D>, input: SagaInput, context: DecideContext): Decision<S, D>;
  /** The run's public view (result, progress), published with every state change. */
  view(run: RunSnapshot<S, D>): JsonObject;
}

// Definitions of different workflows share a registry, where each one's data type is erased.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySagaDefinition = SagaDefinition<string, any>;

/** Narrows an event input to a message definition, typed. */
export function eventOf<M extends AnyMessageDefinition>(
  input: SagaInput,
  message: M,
): Envelope<MessageData<M>> | undefined {
  return input.kind === 'event' && input.envelope.type === message.subject
    ? (input.envelope as Envelope<MessageData<M>>)
    : undefined;
}

export function inputName(input: SagaInput): string {
  switch (input.kind) {
    case 'start':
      return 'start';
    case 'event':
      return input.envelope.type;
    case 'timer':
      return `timer:${input.name}`;
    case 'cancel':
      return 'cancel';
    case 'human':
      return `human:${input.inputType}`;
    case 'child':
      return `child:${input.workflowType}:${input.state}`;
    case 'claim':
      return `claim:${input.outcome}`;
  }
}
