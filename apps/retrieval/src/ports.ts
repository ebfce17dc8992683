import type { DocumentIndexed, MessageData, RetrievalHit, RetrievalMiss } from '@openpaw/contracts';

/** Injection tokens of the retrieval service's ports. */
export const RETRIEVAL_SETTINGS = Symbol('openpaw.retrieval.settings');
export const RETRIEVAL_EMBEDDER = Symbol('openpaw.retrieval.embedder');
export const RETRIEVAL_REPLIES = Symbol('openpaw.retrieval.replies');

/** The answer to one retrieval command, kept before it is published and republished verbatim on redelivery. */
export type RetrievalReply =
  | { readonly type: 'RetrievalHit'; readonly id: string; readonly data: MessageData<typeof RetrievalHit> }
  | { readonly type: 'RetrievalMiss'; readonly id: string; readonly data: MessageData<typeof RetrievalMiss> }
  | { readonly type: 'DocumentIndexed'; readonly id: string; readonly data: MessageData<typeof DocumentIndexed> };

/** The `retrieval` schema's record of answered commands (table `command_replies`). */
export interface RetrievalReplyStore {
  find(commandId: string): Promise<RetrievalReply | undefined>;
  /** Keeps the reply unless one is already kept for the command; returns the kept one (the first wins). */
  save(commandId: string, reply: RetrievalReply): Promise<RetrievalReply>;
}
