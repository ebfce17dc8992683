import type { SeenCelebrity } from '../domain/observation.js';
import { runKeys } from './kv-keys.js';
import type { RunKey, RunMemory, SeenKind, StoredEdge } from './run-memory.js';

/**
 * Run memory in process memory, same keys and semantics as the KV one (without TTL): for handler
 * specs and the bench. `forget()` drops everything, as an expired bucket would.
 */
export class InMemoryRunMemory implements RunMemory {
  private readonly values = new Map<string, string>();

  forget(): void {
    this.values.clear();
  }

  private get<T>(key: string): Promise<T | undefined> {
    const raw = this.values.get(key);
    return Promise.resolve(raw === undefined ? undefined : (JSON.parse(raw) as T));
  }

  private put(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.stringify(value));
    return Promise.resolve();
  }

  async seen(run: RunKey, kind: SeenKind): Promise<ReadonlyMap<string, string>> {
    return new Map(Object.entries((await this.get<Record<string, string>>(runKeys.seen(run, kind))) ?? {}));
  }
  async addSeen(run: RunKey, kind: SeenKind, entries: ReadonlyMap<string, string>): Promise<void> {
    const current = (await this.get<Record<string, string>>(runKeys.seen(run, kind))) ?? {};
    await this.put(runKeys.seen(run, kind), { ...current, ...Object.fromEntries(entries) });
  }
  getRecognition(run: RunKey, phash: string): Promise<readonly SeenCelebrity[] | undefined> {
    return this.get(runKeys.recognition(run, phash));
  }
  putRecognition(run: RunKey, phash: string, celebrities: readonly SeenCelebrity[]): Promise<void> {
    return this.put(runKeys.recognition(run, phash), celebrities);
  }
  getEdge(run: RunKey, fromId: string, toId: string): Promise<StoredEdge | undefined> {
    return this.get(runKeys.edge(run, fromId, toId));
  }
  putEdge(run: RunKey, fromId: string, toId: string, edge: StoredEdge): Promise<void> {
    return this.put(runKeys.edge(run, fromId, toId), edge);
  }
  getReply<T>(run: RunKey, commandId: string): Promise<T | undefined> {
    return this.get(runKeys.reply(run, commandId));
  }
  putReply(run: RunKey, commandId: string, reply: unknown): Promise<void> {
    return this.put(runKeys.reply(run, commandId), reply);
  }
}
