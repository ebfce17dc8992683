import type { AnyMessageDefinition, MessageData } from '@openpaw/contracts';

/** A retrieval command as its handler takes it. */
export interface RetrievalCommand<D extends AnyMessageDefinition> {
  /** The command's envelope id: the reply's id derives from it and the saga matches the reply by it. */
  readonly commandId: string;
  readonly data: MessageData<D>;
}
