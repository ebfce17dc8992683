import type { PubAck } from '@nats-io/jetstream';
import { createInbox, type MsgHdrs, type NatsConnection, PermissionViolationError, type Subscription } from '@nats-io/nats-core';

/**
 * A JetStream publish the server refused (its PubAck carried an error), or that no stream took.
 * `unavailable`: the refusal says JetStream cannot store it now (no responders while a stream elects its
 * leader or a server restarts, or a 503 answer), so the caller may answer "try again" (a 503 at the gateway).
 */
export class PublishRefusedError extends Error {
  override readonly name = 'PublishRefusedError';

  constructor(
    message: string,
    readonly unavailable: boolean,
  ) {
    super(message);
  }
}

/** A PubAck's refusal: its description and whether it says "not now" (status 503). */
export interface PubAckRefusal {
  readonly refused: string;
  readonly unavailable: boolean;
}

/** A publish whose PubAck did not come in time: it may or may not be stored (re-publish with the same msgId). */
export class PublishTimeoutError extends Error {
  override readonly name = 'PublishTimeoutError';
}

interface Waiting {
  readonly resolve: (ack: PubAck) => void;
  readonly reject: (error: Error) => void;
  readonly subject: string;
  readonly deadline: number;
}

const decoder = new TextDecoder();

/**
 * JetStream publishes whose PubAcks come back on one wildcard inbox of the connection. nats.js's
 * `js.publish` is a `request`: per publish it allocates a request with a timer of its own and, once
 * the answer is in, builds an Error (a stack captured) only to reject the settled promise it holds —
 * about 8 % of the coordinator's CPU per step. Here a publish is a map entry and one `publish` with a
 * reply subject; one timer sweeps the deadlines. Same wire format: the server answers a publish that
 * names a reply subject with the PubAck JSON (`{stream, seq, duplicate}` or `{error}`), or with a 503
 * status when no stream takes the subject.
 */
export class PubAcks {
  readonly #waiting = new Map<string, Waiting>();
  #subscription: Subscription | undefined;
  #prefix = '';
  #next = 0;
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 5_000,
  ) {
    // A closed connection answers nothing more: fail what waits instead of letting it time out.
    void nc.closed().then(() => this.close());
    void this.#refuseWhatTheServerForbids();
  }

  /**
   * A publish this connection's user may not make is answered by no PubAck: the server drops it and
   * says so on the connection (`-ERR 'Permissions Violation for Publish to "<subject>"'`). Its waiting
   * publishes fail at once, refused for good, rather than time out and be retried as if lost.
   */
  async #refuseWhatTheServerForbids(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type !== 'error' || !(status.error instanceof PermissionViolationError) || status.error.operation !== 'publish') continue;
      const { subject } = status.error;
      for (const [token, waiting] of this.#waiting) {
        if (waiting.subject !== subject) continue;
        this.#waiting.delete(token);
        waiting.reject(new PublishRefusedError(`${subject}: this connection's user may not publish it (permissions violation)`, false));
      }
    }
  }

  /** Publishes and resolves with the PubAck (stored, or `duplicate` when the server dropped a re-publish). */
  publish(subject: string, payload: Uint8Array, headers: MsgHdrs, timeoutMs = this.timeoutMs): Promise<PubAck> {
    const token = (this.#next += 1).toString(36);
    return new Promise<PubAck>((resolve, reject) => {
      this.#waiting.set(token, { resolve, reject, subject, deadline: Date.now() + timeoutMs });
      try {
        if (this.#subscription === undefined || this.#subscription.isClosed()) this.#subscribe();
        this.nc.publish(subject, payload, { reply: `${this.#prefix}${token}`, headers });
      } catch (error) {
        this.#waiting.delete(token);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.#sweep ??= this.#startSweep(Math.min(timeoutMs, 250));
    });
  }

  /** Fails every publish still waiting (the connection is closing). */
  close(reason = 'the connection closed before the PubAck came'): void {
    for (const waiting of this.#waiting.values()) waiting.reject(new PublishTimeoutError(`${waiting.subject}: ${reason}`));
    this.#waiting.clear();
    if (this.#sweep !== undefined) clearInterval(this.#sweep);
    this.#sweep = undefined;
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
  }

  #subscribe(): void {
    const inbox = createInbox();
    this.#prefix = `${inbox}.`;
    this.#subscription = this.nc.subscribe(`${inbox}.*`, {
      callback: (error, msg) => {
        if (error !== null) return;
        const token = msg.subject.slice(this.#prefix.length);
        const waiting = this.#waiting.get(token);
        if (waiting === undefined) return; // late: its publish already timed out
        this.#waiting.delete(token);
        if (msg.data.length === 0 && msg.headers?.code === 503) {
          // No stream took it: none is configured for the subject, or its leader is being elected.
          waiting.reject(new PublishRefusedError(`${waiting.subject}: no stream takes this subject now (503 no responders)`, true));
          return;
        }
        const answer = pubAckOf(decoder.decode(msg.data));
        if ('refused' in answer) waiting.reject(new PublishRefusedError(`${waiting.subject}: ${answer.refused}`, answer.unavailable));
        else waiting.resolve(answer);
      },
    });
  }

  #startSweep(everyMs: number): NodeJS.Timeout {
    const timer = setInterval(() => {
      const now = Date.now();
      for (const [token, waiting] of this.#waiting) {
        if (waiting.deadline > now) continue;
        this.#waiting.delete(token);
        waiting.reject(new PublishTimeoutError(`${waiting.subject}: no PubAck within the publish timeout`));
      }
      if (this.#waiting.size === 0) {
        clearInterval(timer);
        this.#sweep = undefined;
      }
    }, everyMs);
    timer.unref();
    return timer;
  }
}

/** The PubAck, or its refusal. */
export function pubAckOf(text: string): PubAck | PubAckRefusal {
  const invalid = (refused: string): PubAckRefusal => ({ refused, unavailable: false });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return invalid(`the PubAck is not JSON: ${text.slice(0, 120)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) return invalid(`the PubAck is not an object: ${text.slice(0, 120)}`);
  const answer = parsed as { stream?: unknown; seq?: unknown; duplicate?: unknown; domain?: unknown; error?: { code?: unknown; err_code?: unknown; description?: unknown } };
  if (answer.error !== undefined) {
    const { code, err_code: errCode, description } = answer.error;
    const codes = [code, errCode].filter((c) => typeof c === 'number' || typeof c === 'string').join('/');
    return { refused: `refused (${codes === '' ? 'no code' : codes}): ${typeof description === 'string' ? description : 'no description'}`, unavailable: code === 503 };
  }
  if (typeof answer.stream !== 'string' || answer.stream === '' || typeof answer.seq !== 'number') return invalid(`invalid PubAck: ${text.slice(0, 120)}`);
  const ack: PubAck = { stream: answer.stream, seq: answer.seq, duplicate: answer.duplicate === true };
  if (typeof answer.domain === 'string') ack.domain = answer.domain;
  return ack;
}
