import { hash } from 'node:crypto';

/**
 * A UUID (version 8, RFC 9562 "custom") derived from sha256 of the parts, so the same idempotency
 * key always yields the same id: run ids from submission keys, command ids from (run, attempt, step),
 * reply ids from command ids. A re-publish then carries the same `Nats-Msg-Id` and dedups.
 */
export function deterministicUuid(...parts: readonly string[]): string {
  // sha256 of each part as `<length>:<part>`, hashed in one call (a hash object fed three updates a
  // part took twice as long, and the coordinator derives several ids a step). The bytes are the same:
  // ids already published and stored do not change.
  let framed = '';
  for (const part of parts) framed += `${part.length}:${part}`;
  const bytes = hash('sha256', framed, 'buffer').subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The run id of a submission: same workflow type and idempotency key, same run. */
export function runIdFor(workflowType: string, idempotencyKey: string): string {
  return deterministicUuid('run', workflowType, idempotencyKey);
}
