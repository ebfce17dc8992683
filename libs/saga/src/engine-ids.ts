import { deterministicUuid, runIdFor } from '@openpaw/contracts';
import type { RunSnapshot } from './definition.js';

/**
 * The ids the engine gives what a decision asks for. Definitions that need them (to match a reply to
 * the command it answers, or to know a child's run id) call these, never re-derive them.
 */

type RunIdentity = Pick<RunSnapshot, 'id' | 'attemptNo'>;

/** The envelope id (and first msgID) of a `send` or `publish` effect with `key`, in this attempt. */
export function effectMessageId(runId: string, attemptNo: number, effect: 'send' | 'publish', key: string): string {
  return deterministicUuid(runId, String(attemptNo), effect, key);
}

/** The id of the command a `send` effect with `key` produced: what the service's reply carries as `commandId`. */
export function commandIdFor(runId: string, attemptNo: number, key: string): string {
  return effectMessageId(runId, attemptNo, 'send', key);
}

/** The envelope id (and msgID) of a `sendBatch` effect: the delivery's name; its items keep their own ids (`commandIdFor` of their keys). */
export function batchMessageId(runId: string, attemptNo: number, keys: readonly string[]): string {
  return deterministicUuid(runId, String(attemptNo), 'sendBatch', ...keys);
}

/** The idempotency key of a child or background run started with `key` by this attempt of the run. */
export function childIdempotencyKey(run: RunIdentity, key: string): string {
  return `${run.id}:${run.attemptNo}:${key}`;
}

/** The run id of a child or background run of `workflowType` started with `key` by this attempt of the run. */
export function childRunIdFor(run: RunIdentity, workflowType: string, key: string): string {
  return runIdFor(workflowType, childIdempotencyKey(run, key));
}
