import type { AnyMessageDefinition, Envelope, MessageData } from '@openpaw/contracts';
import type { ClaimInput, Decision, DecideContext, JsonObject, RunSnapshot, SagaInput } from './definition.js';

/**
 * A workflow definition as a table you can hold next to its spec: per state, the inputs it answers,
 * each with the states it may move to and the handler that decides. The definition's transition table
 * is derived from the rows (so it cannot drift from the code), and a handler that picks a state its
 * row did not declare is refused. See README.md, "The workflow idiom".
 *
 * Input keys: `start`; an event's subject; `timer:<family>` (a timer's name without its trailing
 * `:<try>` segments, e.g. `timer:timeout:render` for `timeout:render:2`); `child:<workflowType>`;
 * `human:<inputType>`; `claim` (the answer to a `claimKey`). Cancellation is the engine's (see `cancelledState`).
 */
export interface Row<S extends string, D> {
  readonly key: string;
  /** The states this row may move to; empty when it only ever stays (retries in place, progress). */
  readonly to: readonly S[];
  readonly decide: (run: RunSnapshot<S, D>, input: SagaInput, context: DecideContext) => Decision<S, D>;
}

export type WorkflowTable<S extends string, D> = Readonly<Partial<Record<S, readonly Row<S, D>[]>>>;

type Handler<S extends string, D, I> = (run: RunSnapshot<S, D>, input: I, context: DecideContext) => Decision<S, D>;

export function onStart<S extends string, D>(to: readonly NoInfer<S>[], decide: Handler<S, D, JsonObject>): Row<S, D> {
  return { key: 'start', to, decide: (run, input, context) => decide(run, input.kind === 'start' ? input.input : {}, context) };
}

export function onEvent<S extends string, D, M extends AnyMessageDefinition>(
  message: M,
  to: readonly NoInfer<S>[],
  decide: Handler<S, D, Envelope<MessageData<M>>>,
): Row<S, D> {
  return {
    key: message.subject,
    to,
    decide: (run, input, context) =>
      input.kind === 'event' ? decide(run, input.envelope as Envelope<MessageData<M>>, context) : { outcome: 'ignore', reason: `not ${message.subject}` },
  };
}

export interface TimerInput {
  readonly name: string;
  readonly payload: JsonObject;
}

/** A timer row: `family` is the timer's name without trailing `:<n>` segments (`timeout:render`, `retry:render`, `deadline`). */
export function onTimer<S extends string, D>(family: string, to: readonly NoInfer<S>[], decide: Handler<S, D, TimerInput>): Row<S, D> {
  return {
    key: `timer:${family}`,
    to,
    decide: (run, input, context) =>
      input.kind === 'timer' ? decide(run, { name: input.name, payload: input.payload }, context) : { outcome: 'ignore', reason: `not timer ${family}` },
  };
}

export type ChildInput = Extract<SagaInput, { kind: 'child' }>;

export function onChild<S extends string, D>(workflowType: string, to: readonly NoInfer<S>[], decide: Handler<S, D, ChildInput>): Row<S, D> {
  return {
    key: `child:${workflowType}`,
    to,
    decide: (run, input, context) => (input.kind === 'child' ? decide(run, input, context) : { outcome: 'ignore', reason: `not child ${workflowType}` }),
  };
}

export type HumanInput = Extract<SagaInput, { kind: 'human' }>;

export function onHuman<S extends string, D>(inputType: string, to: readonly NoInfer<S>[], decide: Handler<S, D, HumanInput>): Row<S, D> {
  return {
    key: `human:${inputType}`,
    to,
    decide: (run, input, context) => (input.kind === 'human' ? decide(run, input, context) : { outcome: 'ignore', reason: `not human ${inputType}` }),
  };
}

/** The answer to this run's `claimKey` (claimed, or held by another run), and news that a holder it waits for ended. */
export function onClaim<S extends string, D>(to: readonly NoInfer<S>[], decide: Handler<S, D, ClaimInput>): Row<S, D> {
  return {
    key: 'claim',
    to,
    decide: (run, input, context) => (input.kind === 'claim' ? decide(run, input, context) : { outcome: 'ignore', reason: 'not a claim' }),
  };
}

/** The row key an input is looked up by (see `Row`). */
export function inputKeyOf(input: SagaInput): string {
  switch (input.kind) {
    case 'start':
      return 'start';
    case 'event':
      return input.envelope.type;
    case 'timer':
      return `timer:${input.name.replace(/(:\d+)+$/, '')}`;
    case 'child':
      return `child:${input.workflowType}`;
    case 'human':
      return `human:${input.inputType}`;
    case 'cancel':
      return 'cancel';
    case 'claim':
      return 'claim';
  }
}

/**
 * The transition table the rows declare (what the engine enforces): per state, every target of its
 * rows, plus the engine's cancel edge from each `cancellable` state.
 */
export function transitionsOf<S extends string, D>(
  table: WorkflowTable<S, D>,
  cancel?: { readonly from: readonly S[]; readonly to: S },
): Partial<Record<S, S[]>> {
  const transitions: Partial<Record<S, S[]>> = {};
  for (const [state, rows] of Object.entries(table) as [S, readonly Row<S, D>[]][]) {
    const targets = [...new Set(rows.flatMap((row) => row.to))];
    if (targets.length > 0) transitions[state] = targets;
  }
  for (const state of cancel?.from ?? []) transitions[state] = [...new Set([...(transitions[state] ?? []), cancel?.to as S])];
  return transitions;
}

/**
 * `decide` over a table: the row of (run state, input key) decides; no row → the input is recorded and
 * ignored; a row moving to a state it did not declare → refused (a bug, never applied).
 */
export function decideByTable<S extends string, D>(type: string, table: WorkflowTable<S, D>) {
  const rows = new Map<string, Row<S, D>>();
  for (const [state, stateRows] of Object.entries(table) as [S, readonly Row<S, D>[]][]) {
    for (const row of stateRows) {
      const key = `${state}\u0000${row.key}`;
      if (rows.has(key)) throw new Error(`${type}: two rows for ${row.key} in ${state}`);
      rows.set(key, row);
    }
  }
  return (run: RunSnapshot<S, D>, input: SagaInput, context: DecideContext): Decision<S, D> => {
    const key = inputKeyOf(input);
    const row = rows.get(`${run.state}\u0000${key}`);
    if (row === undefined) return { outcome: 'ignore', reason: `${key} is not an input of ${type} in ${run.state}` };
    const decision = row.decide(run, input, context);
    if (decision.outcome === 'transition' && !row.to.includes(decision.to)) {
      return { outcome: 'refuse', reason: `${type}: the row for ${key} in ${run.state} moved to ${decision.to}, not one of its targets (${row.to.join(', ') || 'none'})` };
    }
    return decision;
  };
}
