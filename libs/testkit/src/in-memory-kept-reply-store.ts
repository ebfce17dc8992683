import type { KeptReplyStore, Reply } from '@openpaw/messaging';

/** `KeptReplyStore` in a map, for unit specs: the first replies kept for a command win. */
export class InMemoryKeptReplyStore implements KeptReplyStore {
  readonly kept = new Map<string, readonly Reply[]>();

  find(commandId: string): Promise<readonly Reply[] | undefined> {
    return Promise.resolve(this.kept.get(commandId));
  }

  keep(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    const kept = this.kept.get(commandId) ?? replies;
    this.kept.set(commandId, kept);
    return Promise.resolve(kept);
  }
}
