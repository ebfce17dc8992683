import type { AnyMessageDefinition, MessageData } from '@openpaw/contracts';

/** A command as a handler receives it: its envelope id (reply ids derive from it) and its data. */
export interface VisualCommand<D extends AnyMessageDefinition> {
  readonly commandId: string;
  readonly data: MessageData<D>;
  /** Aborts when the command's run ended (cancelled, out of time): its provider calls stop. */
  readonly signal?: AbortSignal;
}
