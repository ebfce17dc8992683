import { jetstreamManager, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { ConnectionError, NoRespondersError, RequestError, TimeoutError, type NatsConnection } from '@nats-io/nats-core';
import { PublishRefusedError, PublishTimeoutError } from './pub-acks.js';

/** JetStream's "temporarily unavailable" (no meta leader yet, a stream's leader being elected). */
const TEMPORARILY_UNAVAILABLE = 10008;

/**
 * Errors that mean "JetStream is not answering yet": nats-server restarting or recovering its
 * streams, a cluster electing a leader, the connection being re-established. Worth waiting for,
 * unlike a refused configuration or missing permissions.
 */
export function isJetStreamUnavailable(error: unknown): boolean {
  // Our publishes' own errors (PubAcks): a PubAck that did not come, or a refusal saying "not now".
  if (error instanceof PublishTimeoutError || (error instanceof PublishRefusedError && error.unavailable)) return true;
  if (error instanceof TimeoutError || error instanceof NoRespondersError || error instanceof ConnectionError) return true;
  if (error instanceof RequestError) return error.isNoResponders() || error.cause instanceof TimeoutError;
  // nats.js reports "no responders" on the JetStream API as "not enabled", which is also what a
  // restarting server answers before its JetStream subsystem is up (the class is not exported: by name).
  if (error instanceof Error && error.name === 'JetStreamNotEnabled') return true;
  return error instanceof JetStreamApiError && (error.code === TEMPORARILY_UNAVAILABLE || error.status === 503);
}

export interface WhenJetStreamAnswersOptions {
  /** Called before each wait (default: a JSON warning on stderr at the first retry and every tenth). */
  readonly onRetry?: (attempt: number, error: Error, delayMs: number) => void;
  /** Stops retrying (the last error is thrown). */
  readonly signal?: AbortSignal;
}

function reportRetry(what: string): (attempt: number, error: Error, delayMs: number) => void {
  return (attempt, error, delayMs) => {
    if (attempt === 1 || attempt % 10 === 0) {
      process.stderr.write(`${JSON.stringify({ level: 'warn', time: Date.now(), msg: 'JetStream unavailable; retrying', what, attempt, retryInMs: delayMs, err: error.message })}\n`);
    }
  };
}

/**
 * Runs an idempotent JetStream call (provisioning, info), retrying with backoff (250 ms doubling to
 * 5 s) for as long as JetStream is unavailable, the way a service start waits for PostgreSQL: a
 * service restarted while nats-server restarts is not ready until it answers, and does not exit.
 */
export async function whenJetStreamAnswers<T>(what: string, call: () => Promise<T>, options: WhenJetStreamAnswersOptions = {}): Promise<T> {
  const onRetry = options.onRetry ?? reportRetry(what);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!isJetStreamUnavailable(error) || options.signal?.aborted === true) throw error;
      const delayMs = Math.min(5_000, 250 * 2 ** Math.min(attempt - 1, 5));
      onRetry(attempt, error as Error, delayMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
  }
}

/** `jetstreamManager(nc)` (which asks the server for the account's JetStream info), once JetStream answers. */
export function jetstreamManagerWhenReady(nc: NatsConnection, options?: WhenJetStreamAnswersOptions): Promise<JetStreamManager> {
  return whenJetStreamAnswers('jetstream manager', () => jetstreamManager(nc), options);
}
