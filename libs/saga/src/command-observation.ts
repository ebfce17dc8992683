import type { Envelope } from '@openpaw/contracts';

/**
 * What the coordinator observed about a pending command when its step timer fired (flow control).
 * Recorded in the timer input (so a replay sees what the live run saw) and read by the engine:
 *  - picked up: the step timeout runs from the pickup, not from the send;
 *  - not picked up while its lane has a backlog: it waits its turn, nothing is re-sent;
 *  - not picked up and the lane is empty: it was lost, and is re-sent under its first id.
 */
export interface CommandObservation {
  /** The service's receipt: when the latest delivery reached a handler. Null: not picked up (yet). */
  readonly receipt: { readonly pickedUpAt: string; readonly deliveries: number } | null;
  /** Commands stored or in progress on the command's lane consumer; null when it could not be read. */
  readonly laneBacklog: number | null;
}

/** Looks a sent command up (receipt store + lane consumer); never throws: unknowns come back as nulls. */
export type CommandObserver = (envelope: Envelope) => Promise<CommandObservation>;

export function isCommandObservation(value: unknown): value is CommandObservation {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return 'receipt' in o && 'laneBacklog' in o;
}
