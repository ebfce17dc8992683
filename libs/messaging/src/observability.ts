import type { HandlerOutcome } from './ports.js';

/** The subset of a pino logger this lib uses (`logger.warn({ subject }, 'message')`). */
export interface MessagingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Metrics hooks (libs/platform plugs prom-client in). Called on the hot path: keep them cheap and
 * never throw.
 */
export interface MessagingObserver {
  /** A handler (or batch handler, once per message) finished with this outcome; thrown errors count as `retry`. */
  onHandled(subject: string, outcome: HandlerOutcome['kind'], durationMs: number): void;
  /** A message was published to its dead-letter subject (and termed). */
  onDeadLettered(subject: string, reason: string): void;
}

/** The default logger: warnings and errors to stderr as JSON lines, info dropped. */
export const stderrLogger: MessagingLogger = {
  info: () => undefined,
  warn: (obj, msg) => {
    console.warn(JSON.stringify({ level: 'warn', lib: 'messaging', ...obj, msg }));
  },
  error: (obj, msg) => {
    console.error(JSON.stringify({ level: 'error', lib: 'messaging', ...obj, msg }));
  },
};

/** A readable message from anything thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}
