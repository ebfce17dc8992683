import { type TakeDownVisualPerson, VisualPersonTakenDown } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import type { VisualCommand } from '../handlers/command.js';
import type { EvidenceCache } from '../domain/evidence-cache.js';
import type { EvidenceThumbnails } from '../observation/evidence-thumbnails.js';
import type { TakedownList, TakedownRecord } from './takedown-list.js';

export interface TakedownPorts {
  readonly takedowns: TakedownList;
  readonly cache: EvidenceCache;
  readonly thumbnails: EvidenceThumbnails;
}

export interface TakedownResult {
  readonly celebrityId: string;
  /** Verified and refuted pairs with the person, purged from the evidence cache shared by every run. */
  readonly cacheEntriesRemoved: number;
  /** Stored photos the recogniser saw the person in, deleted (the gateway answers 404 for them from now on). */
  readonly thumbnailsRemoved: number;
}

/**
 * A person's takedown: recorded first (from then on no step recognises them, keeps a photo of them, or
 * verifies an edge with them: see `ImageObserver` and `VerifyEdgeHandler`), then their evidence already
 * kept is removed: the cached pairs and every stored thumbnail showing them. Run again, it removes what
 * a step in flight may have kept meanwhile (replicas re-read the list within `DEFAULT_TAKEDOWN_REFRESH_MS`).
 */
export async function takeDownPerson(ports: TakedownPorts, request: Omit<TakedownRecord, 'at'>, now: Date = new Date()): Promise<TakedownResult> {
  await ports.takedowns.add({ ...request, at: now.toISOString() });
  const cacheEntriesRemoved = await ports.cache.removePerson(request.recognizer, request.celebrityId);
  const thumbnailsRemoved = await ports.thumbnails.deleteShowing(request.recognizer, request.celebrityId);
  return { celebrityId: request.celebrityId, cacheEntriesRemoved, thumbnailsRemoved };
}

/**
 * `TakeDownVisualPerson`, answered with `VisualPersonTakenDown`: the one way a takedown is made, whether
 * the gateway's operations route sent the command or the `visual-takedown` tool runs it in process. A
 * redelivered command takes the person down again, which removes nothing more and records the same.
 */
export class TakeDownPersonHandler {
  constructor(
    private readonly ports: TakedownPorts & { readonly recognizer: string },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async execute({ commandId, data }: VisualCommand<typeof TakeDownVisualPerson>): Promise<Reply<typeof VisualPersonTakenDown>> {
    const at = this.now();
    const request = { recognizer: this.ports.recognizer, celebrityId: data.celebrityId, reason: data.reason, requestedBy: data.requestedBy, ...(data.name === undefined ? {} : { name: data.name }) };
    const removed = await takeDownPerson(this.ports, request, at);
    return replyTo(commandId, VisualPersonTakenDown, { commandId, recognizer: this.ports.recognizer, ...removed, at: at.toISOString() });
  }
}
