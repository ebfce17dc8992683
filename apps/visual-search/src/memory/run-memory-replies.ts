import { type KeptReplyStore, keptForm, type Reply, restoredReplies } from '@openpaw/messaging';
import type { RunKey, RunMemory } from './run-memory.js';

/**
 * A run's kept replies (`KeptReplyStore` of `@openpaw/messaging`) in its run memory, in the kept
 * form every service uses. Like any run-memory key, an expired or unreadable entry counts as no reply:
 * the command is answered again (repeated work, never a broken run).
 */
export class RunMemoryReplies implements KeptReplyStore {
  constructor(
    private readonly memory: RunMemory,
    private readonly run: RunKey,
  ) {}

  async find(commandId: string): Promise<readonly Reply[] | undefined> {
    const kept = await this.memory.getReply<unknown>(this.run, commandId);
    if (kept === undefined) return undefined;
    try {
      return restoredReplies(kept);
    } catch {
      return undefined;
    }
  }

  async keep(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    await this.memory.putReply(this.run, commandId, keptForm(replies));
    return replies;
  }
}
