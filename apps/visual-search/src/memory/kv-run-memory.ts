import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { openKvBucket } from '@openpaw/messaging';
import type { SeenCelebrity } from '../domain/observation.js';
import { getJson, mergeJson, putJson } from './kv-json.js';
import { RUN_MEMORY_BUCKET, runKeys } from './kv-keys.js';
import type { RunKey, RunMemory, SeenKind, StoredEdge } from './run-memory.js';

/** Run memory in a JetStream KV bucket whose TTL (stream max age) expires every key of a run. */
export class KvRunMemory implements RunMemory {
  private constructor(private readonly kv: KV) {}

  /** Opens the provisioned bucket (its TTL expires a run's keys), waiting until it exists. */
  static async open(jsm: JetStreamManager, options: { readonly bucket?: string } = {}): Promise<KvRunMemory> {
    return new KvRunMemory(await openKvBucket(jsm, options.bucket ?? RUN_MEMORY_BUCKET));
  }

  async seen(run: RunKey, kind: SeenKind): Promise<ReadonlyMap<string, string>> {
    return new Map(Object.entries((await getJson<Record<string, string>>(this.kv, runKeys.seen(run, kind))) ?? {}));
  }

  addSeen(run: RunKey, kind: SeenKind, entries: ReadonlyMap<string, string>): Promise<void> {
    if (entries.size === 0) return Promise.resolve();
    return mergeJson<Record<string, string>>(this.kv, runKeys.seen(run, kind), (current) => ({ ...current, ...Object.fromEntries(entries) }));
  }

  getRecognition(run: RunKey, phash: string): Promise<readonly SeenCelebrity[] | undefined> {
    return getJson<SeenCelebrity[]>(this.kv, runKeys.recognition(run, phash));
  }

  putRecognition(run: RunKey, phash: string, celebrities: readonly SeenCelebrity[]): Promise<void> {
    return putJson(this.kv, runKeys.recognition(run, phash), celebrities);
  }

  getEdge(run: RunKey, fromId: string, toId: string): Promise<StoredEdge | undefined> {
    return getJson<StoredEdge>(this.kv, runKeys.edge(run, fromId, toId));
  }

  putEdge(run: RunKey, fromId: string, toId: string, edge: StoredEdge): Promise<void> {
    return putJson(this.kv, runKeys.edge(run, fromId, toId), edge);
  }

  getReply<T>(run: RunKey, commandId: string): Promise<T | undefined> {
    return getJson<T>(this.kv, runKeys.reply(run, commandId));
  }

  putReply(run: RunKey, commandId: string, reply: unknown): Promise<void> {
    return putJson(this.kv, runKeys.reply(run, commandId), reply);
  }
}
