import { KV_BUCKETS } from '@openpaw/messaging';
import type { RunKey, SeenKind } from './run-memory.js';

/**
 * The buckets (names FROZEN, TTLs and replicas set by provisioning, never by this service) are in
 * the platform's KV catalog: changing a name orphans live runs' memory and the shared evidence cache.
 */
export const RUN_MEMORY_BUCKET = KV_BUCKETS.visualRunMemory.name;
export const EVIDENCE_CACHE_BUCKET = KV_BUCKETS.visualEvidenceCache.name;

/**
 * One key token from any string: NATS KV keys allow `[-/_=.A-Za-z0-9]` with `.` as the separator, so
 * plain ids pass as they are and anything else is `=` + base64url (a raw token never starts with `=`).
 */
export function keyToken(value: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : `=${Buffer.from(value, 'utf8').toString('base64url')}`;
}

function prefix(run: RunKey): string {
  return `vd.${keyToken(run.sessionId)}.${keyToken(run.runId)}`;
}

export const runKeys = {
  seen: (run: RunKey, kind: SeenKind) => `${prefix(run)}.seen.${kind}`,
  recognition: (run: RunKey, phash: string) => `${prefix(run)}.recognition.${keyToken(phash)}`,
  edge: (run: RunKey, fromId: string, toId: string) => `${prefix(run)}.edge.${keyToken(fromId)}.${keyToken(toId)}`,
  reply: (run: RunKey, commandId: string) => `${prefix(run)}.reply.${keyToken(commandId)}`,
};
