import type { Envelope } from '@openpaw/contracts';
import { STEP_TIMER_PREFIX } from '../step-timers.js';

/** The engine's own step timers (re-send, then time out) are named `<prefix><effect key>`. */
export const RESEND_PREFIX = STEP_TIMER_PREFIX;

/** Payload of the engine's own resend timers. */
export interface ResendTimerPayload {
  readonly key: string;
  readonly state: string;
  readonly attemptNo: number;
  readonly count: number;
  readonly maxResends: number;
  readonly afterMs: number;
  readonly envelope: Envelope;
  /** When the command was first sent (ISO 8601); absent in timers written before flow control. */
  readonly sentAt?: string;
  /** The pickup the step timeout last counted from (ISO 8601), once a receipt was seen. */
  readonly pickedUpAt?: string;
  /** Re-sends of a command found lost (never picked up, its lane empty). */
  readonly lostResends?: number;
  /** `send`: the timeout runs from the send, queued or not (see the `send` effect). */
  readonly from?: 'pickup' | 'send';
}
