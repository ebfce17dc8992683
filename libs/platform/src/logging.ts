import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { PinoLogger, type Params } from 'nestjs-pino';
import { type Bindings, type Logger, stdTimeFunctions } from 'pino';
import { currentSpanId, currentTraceId } from './tracing.js';

/** Paths probed every few seconds; their requests are not logged. */
export const PROBE_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/**
 * nestjs-pino parameters for a service: JSON lines with `service` on every line, the active trace
 * id when there is one, ISO timestamps, the level from `LOG_LEVEL` (default `info`).
 */
export function loggerParams(service: string, options: { readonly level?: string } = {}): Params {
  return {
    pinoHttp: {
      level: options.level ?? process.env['LOG_LEVEL'] ?? 'info',
      base: { service, pid: process.pid, hostname: hostname() },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const traceId = currentTraceId();
        return traceId === undefined ? {} : { traceId, spanId: currentSpanId() };
      },
      autoLogging: { ignore: (req: IncomingMessage) => PROBE_PATHS.includes((req.url ?? '').split('?')[0] ?? '') },
      // The access line names the request and its answer, not every header: pino's default wrote them all
      // (~1 kB a line, each redacted and serialised per request; about a tenth of the gateway's CPU on a
      // cached answer), credentials among them (redacted below only in case a line still carries them).
      serializers: { req: accessLogRequest, res: accessLogResponse },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    },
  };
}

/** What an access log line says of a request (given pino's serialised request). */
export function accessLogRequest(req: { readonly id?: unknown; readonly method?: string; readonly url?: string }): Record<string, unknown> {
  return { id: req.id, method: req.method, url: req.url };
}

/** What an access log line says of a response (given pino's serialised response). */
export function accessLogResponse(res: { readonly statusCode?: number }): Record<string, unknown> {
  return { statusCode: res.statusCode };
}

/** The fields of an envelope that every log line about a message carries. */
export interface MessageLogSource {
  /** The envelope id (the message id). */
  readonly id: string;
  /** The envelope's correlation id: the workflow run. */
  readonly correlationid: string;
  readonly type?: string;
  readonly causationid?: string;
}

/** `{ runId, messageId, messageType?, causationId? }` for a log line about a message. */
export function messageLogBindings(envelope: MessageLogSource): Bindings {
  return {
    runId: envelope.correlationid,
    messageId: envelope.id,
    ...(envelope.type === undefined ? {} : { messageType: envelope.type }),
    ...(envelope.causationid === undefined ? {} : { causationId: envelope.causationid }),
  };
}

/** A pino child logger whose lines carry the message's run id and message id. */
export function messageLogger(logger: Logger, envelope: MessageLogSource): Logger {
  return logger.child(messageLogBindings(envelope));
}

/**
 * Scopes logging to one message: every log line written inside `run` — through Nest's `Logger`,
 * an injected `PinoLogger` or `logs.logger` — carries the message's run id and message id.
 */
@Injectable()
export class MessageLogContext {
  constructor(private readonly pino: PinoLogger) {}

  /** The logger of the current scope (a message's, a request's, or the service's root logger). */
  get logger(): Logger {
    return this.pino.logger;
  }

  run<T>(envelope: MessageLogSource, fn: () => T): T {
    return this.pino.runInContext(fn, { bindings: messageLogBindings(envelope), inherit: true });
  }

  // `(fields, message)` logging in the current scope: this is also messaging's `MessagingLogger`.
  info(fields: object, message: string): void {
    this.logger.info(fields, message);
  }

  warn(fields: object, message: string): void {
    this.logger.warn(fields, message);
  }

  error(fields: object, message: string): void {
    this.logger.error(fields, message);
  }
}
