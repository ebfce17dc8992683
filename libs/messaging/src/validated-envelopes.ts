import type { Envelope } from '@openpaw/contracts';

interface Validated {
  readonly subject: string;
  readonly bytes: Buffer;
  readonly envelope: Envelope<unknown>;
}

/** How many validated envelopes a memo holds by default (the oldest is forgotten first). */
export const DEFAULT_VALIDATED_ENVELOPES = 1_024;

/**
 * Envelopes this process validated already, for a second reader of the same message in the same
 * process: a service that both watches a subject live (a core subscription) and consumes it durably
 * gets each message twice, and validates it once.
 *
 * An entry is found by its `Nats-Msg-Id` (the envelope id), and used only when the subject and the
 * bytes are exactly those validated: a different message under a reused id is validated as usual.
 * An entry is forgotten once taken (each reader takes a message once), and the oldest goes when the
 * memo is full, so a message the other reader never gets (another replica consumed it) costs only
 * its place until then.
 */
export class ValidatedEnvelopes {
  readonly #entries = new Map<string, Validated>();

  constructor(private readonly capacity = DEFAULT_VALIDATED_ENVELOPES) {}

  get size(): number {
    return this.#entries.size;
  }

  /** Records `envelope` as validated from `bytes` on `subject` (the bytes are copied). */
  remember(subject: string, msgId: string | undefined, bytes: Uint8Array, envelope: Envelope<unknown>): void {
    if (msgId === undefined || msgId === '' || this.capacity <= 0) return;
    this.#entries.delete(msgId);
    this.#entries.set(msgId, { subject, bytes: Buffer.from(bytes), envelope });
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** The envelope validated from these exact bytes on this subject, if any; forgotten once taken. */
  take(subject: string, msgId: string | undefined, bytes: Uint8Array): Envelope<unknown> | undefined {
    if (msgId === undefined || msgId === '') return undefined;
    const entry = this.#entries.get(msgId);
    if (entry === undefined) return undefined;
    this.#entries.delete(msgId);
    if (entry.subject !== subject || !entry.bytes.equals(bytes)) return undefined;
    return entry.envelope;
  }
}
