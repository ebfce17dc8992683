import { z } from 'zod';
import type { ClaimInput, Decision, RunSnapshot, SagaDefinition } from '../definition.js';
import { decideByTable, onClaim, onEvent, onStart, transitionsOf, type WorkflowTable } from '../workflow-table.js';
import { Work, Worked } from './two-step-definition.js';

// A definition that claims an idempotency key before it works, for this lib's own specs (not exported).

export type ClaimingState = 'NEW' | 'CLAIMING' | 'WORKING' | 'DONE' | 'FAILED' | 'CANCELLED';
export interface ClaimingData {
  readonly key: string;
  readonly n: number;
  /** The holder this run waits for, while it does. */
  readonly waitingFor: string | null;
  /** The run whose result this one answered with. */
  readonly answeredFrom: string | null;
  readonly result: number | null;
}

type S = ClaimingState;
type D = ClaimingData;

const holderResult = z.object({ result: z.number() });

function onClaimAnswer(run: RunSnapshot<S, D>, claim: ClaimInput): Decision<S, D> {
  if (claim.outcome === 'claimed') {
    return { outcome: 'transition', to: 'WORKING', data: { ...run.data, waitingFor: null }, step: 'key_claimed', effects: [{ type: 'send', message: Work, key: 'work', data: { n: run.data.n } }] };
  }
  const { holder } = claim;
  if (!holder.terminal) return { outcome: 'stay', data: { ...run.data, waitingFor: holder.runId }, step: 'waiting_for_holder' };
  if (holder.state === 'DONE') {
    const result = holderResult.parse(holder.view).result;
    return { outcome: 'transition', to: 'DONE', data: { ...run.data, waitingFor: null, answeredFrom: holder.runId, result }, step: 'answered_from_holder' };
  }
  // The holder gave the key up (FAILED, CANCELLED): claim it again.
  return { outcome: 'stay', data: { ...run.data, waitingFor: null }, step: 'holder_released_key', effects: [{ type: 'claimKey', key: run.data.key }] };
}

const table: WorkflowTable<S, D> = {
  NEW: [onStart(['CLAIMING'], (run) => ({ outcome: 'transition', to: 'CLAIMING', data: run.data, effects: [{ type: 'claimKey', key: run.data.key }] }))],
  CLAIMING: [onClaim(['WORKING', 'DONE'], onClaimAnswer)],
  WORKING: [
    onEvent(Worked, ['DONE', 'FAILED'], (run, { data: e }) =>
      e.ok ? { outcome: 'transition', to: 'DONE', data: { ...run.data, result: e.n } } : { outcome: 'transition', to: 'FAILED', data: run.data },
    ),
  ],
};

/** Claims `key` (from its start input) before working; a holder's DONE result is its answer. */
export const claimingDefinition: SagaDefinition<S, D> = {
  type: 'unit_claiming',
  states: ['NEW', 'CLAIMING', 'WORKING', 'DONE', 'FAILED', 'CANCELLED'],
  initial: 'NEW',
  transitions: transitionsOf(table, { from: ['NEW', 'CLAIMING', 'WORKING'], to: 'CANCELLED' }),
  terminal: ['DONE', 'FAILED', 'CANCELLED'],
  cancelledState: 'CANCELLED',
  retryableFrom: ['FAILED', 'CANCELLED'],
  keyClaims: { releasedIn: ['FAILED', 'CANCELLED'] },
  inputs: [Worked],
  init: (input) => ({ key: z.string().parse(input['key']), n: z.int().parse(input['n']), waitingFor: null, answeredFrom: null, result: null }),
  decide: decideByTable('unit_claiming', table),
  view: (run) => ({ state: run.state, ...(run.data.result === null ? {} : { result: run.data.result }), ...(run.data.answeredFrom === null ? {} : { answered_from: run.data.answeredFrom }) }),
};
