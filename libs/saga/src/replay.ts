import type { Envelope } from '@openpaw/contracts';
import { applyInput, applyStart } from './apply/index.js';
import type { AnySagaDefinition, JsonObject, SagaInput } from './definition.js';
import type { RunRecord, StepLogRecord } from './records.js';

export interface ReplayMismatch {
  readonly index: number;
  readonly expected: string;
  readonly actual: string;
}

export interface ReplayReport {
  readonly ok: boolean;
  readonly finalState: string | undefined;
  readonly mismatches: readonly ReplayMismatch[];
}

function deserialiseInput(raw: JsonObject): SagaInput {
  if (raw['kind'] === 'event') {
    return {
      kind: 'event',
      envelope: { type: raw['type'], id: raw['id'], data: raw['data'] } as unknown as Envelope,
    };
  }
  return raw as unknown as SagaInput;
}

const describe = (row: Pick<StepLogRecord, 'stepName' | 'stateBefore' | 'stateAfter'>): string =>
  `${row.stepName}: ${row.stateBefore ?? '∅'} -> ${row.stateAfter}`;

/**
 * Feeds a run's step log back through its definition (the same pure engine the coordinator uses)
 * and checks every logged row, in order, is what the definition produces again.
 */
export function replayRun(
  definition: AnySagaDefinition,
  identity: Pick<RunRecord, 'id' | 'idempotencyKey' | 'userId' | 'parentRunId'>,
  logs: readonly StepLogRecord[],
): ReplayReport {
  const mismatches: ReplayMismatch[] = [];
  let run: RunRecord | undefined;
  let index = 0;
  while (index < logs.length) {
    const row = logs[index];
    if (row === undefined) break;
    const rawInput = row.payload['input'] as JsonObject | undefined;
    if (rawInput === undefined) {
      mismatches.push({ index, expected: 'a row recording its input', actual: describe(row) });
      index += 1;
      continue;
    }
    const input = deserialiseInput(rawInput);
    const meta = { messageId: `replay:${index}`, runId: identity.id };
    const applied =
      input.kind === 'start'
        ? applyStart(
            definition,
            run,
            identity.id,
            {
              workflowType: definition.type,
              idempotencyKey: identity.idempotencyKey,
              userId: identity.userId,
              input: input.input,
              ...(identity.parentRunId === null ? {} : { parentRunId: identity.parentRunId }),
            },
            meta,
            row.occurredAt,
          )
        : run === undefined
          ? undefined
          : applyInput(definition, run, input, meta, row.occurredAt);
    const produced = applied?.logs ?? [];
    if (produced.length === 0) {
      // Inputs that leave no row (a duplicate start) cannot appear in the log; one that does is a mismatch.
      mismatches.push({ index, expected: describe(row), actual: 'no row' });
      index += 1;
      continue;
    }
    for (const [offset, expectedRow] of produced.entries()) {
      const logged = logs[index + offset];
      const actual = logged === undefined ? 'end of log' : describe(logged);
      if (actual !== describe(expectedRow)) mismatches.push({ index: index + offset, expected: describe(expectedRow), actual });
    }
    index += produced.length;
    if (applied?.run !== undefined) run = applied.run;
  }
  return { ok: mismatches.length === 0, finalState: run?.state, mismatches };
}
