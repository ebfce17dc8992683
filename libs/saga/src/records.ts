import type { Envelope } from '@openpaw/contracts';
import type { JsonObject } from './definition.js';

/** A `workflow_runs` row. */
export interface RunRecord {
  readonly id: string;
  readonly type: string;
  readonly state: string;
  readonly attemptNo: number;
  readonly idempotencyKey: string;
  readonly userId: string;
  readonly parentRunId: string | null;
  readonly data: unknown;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A `workflow_step_logs` row: exactly spec 01's columns. */
export interface StepLogRecord {
  readonly workflowRunId: string;
  readonly workflowType: string;
  readonly attemptNo: number;
  readonly stepName: string;
  readonly stateBefore: string | null;
  readonly stateAfter: string;
  readonly payload: JsonObject;
  readonly occurredAt: Date;
}

/** An `outbox` row: published by the relay with `msgId` as the JetStream Nats-Msg-Id. */
export interface OutboxRecord {
  readonly msgId: string;
  readonly envelope: Envelope;
}

export type TimerOperation =
  | {
      readonly op: 'set';
      readonly runId: string;
      readonly name: string;
      readonly fireAt: Date;
      readonly payload: JsonObject;
    }
  | { readonly op: 'clear'; readonly runId: string; readonly name: string }
  /** Clears every timer of the run whose name starts with `prefix` ('' = all). */
  | { readonly op: 'clearPrefix'; readonly runId: string; readonly prefix: string };

/** How an input came in: its message id is the inbox dedup key. */
export interface InputMeta {
  readonly messageId: string;
  readonly runId: string;
  readonly traceparent?: string;
}

/** A `claimKey` effect as the store performs it: this run wants (workflow type, user, key). */
export interface KeyClaim {
  readonly runId: string;
  readonly workflowType: string;
  readonly userId: string;
  readonly key: string;
  /** The input that asked (the claim's answer is applied as part of it, under a derived message id). */
  readonly meta: InputMeta;
}
