import type { AnySagaDefinition, ClaimInput, JsonObject, KeyHolder, SagaInput } from './definition.js';
import type { RunRecord } from './records.js';
import { isTerminal } from './transition-table.js';

/**
 * Idempotency key claims (`claimKey`), the pure side: how a holder is described to a claimant, when it
 * gives its key up, and the timer that tells a waiting claimant its holder ended. The store
 * (`store/key-claim-store.ts`) claims in the run's transaction.
 */

/** A claimant waiting for a holder is told it ended by a timer named `<prefix><key>`, due at once. */
export const KEY_HOLDER_ENDED_TIMER_PREFIX = 'key-holder-ended:';

export interface KeyHolderEndedPayload {
  readonly key: string;
  readonly holder: KeyHolder;
}

export function keyHolderOf(definition: AnySagaDefinition, run: RunRecord): KeyHolder {
  return { runId: run.id, state: run.state, attemptNo: run.attemptNo, terminal: isTerminal(definition, run.state), view: definition.view(run) };
}

/** The holder gave its key up: it ended in one of its definition's `keyClaims.releasedIn` states. */
export function releasesKey(definition: AnySagaDefinition, run: RunRecord): boolean {
  return (definition.keyClaims?.releasedIn ?? []).includes(run.state);
}

/** The claim input a key-holder-ended timer stands for; `undefined` for any other input. */
export function claimInputOf(input: SagaInput): ClaimInput | undefined {
  if (input.kind !== 'timer' || !input.name.startsWith(KEY_HOLDER_ENDED_TIMER_PREFIX)) return undefined;
  const payload = input.payload as unknown as KeyHolderEndedPayload;
  return { kind: 'claim', key: payload.key, outcome: 'held', holder: payload.holder };
}

export function keyHolderEndedPayload(key: string, holder: KeyHolder): JsonObject {
  const payload: KeyHolderEndedPayload = { key, holder };
  return payload as unknown as JsonObject;
}
