import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { OpenPawError } from '@openpaw/contracts';
import { isJetStreamUnavailable } from '@openpaw/messaging';
import type { Response } from 'express';

const CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** How long a caller waits before retrying a request the message bus could not take (an election takes a few seconds). */
export const BUS_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export function errorCodeOf(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

/**
 * OpenPaw errors that may reach a response unhandled, by their stable `code`: the status and the
 * body's `error` (the message is the error's own, so only codes whose messages are fit for the caller
 * are listed). Any other OpenPaw error is an internal error like any exception.
 */
const RESPONSE_OF_CODE: Readonly<Record<string, { readonly status: number; readonly error: string }>> = {
  invalid_token: { status: HttpStatus.UNAUTHORIZED, error: 'unauthorized' },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every error is JSON: `{ error: <snake_case code>, message?, ... }`. Bodies already in that shape
 * (thrown by our handlers) and structured bodies without Nest's default `statusCode` (the readiness
 * report) pass through; Nest's defaults (`Cannot GET /x`, body-parser errors) are normalised;
 * OpenPaw errors are answered by their `code` (`RESPONSE_OF_CODE`); JetStream not answering (a restart,
 * a leader election) is a 503 with Retry-After; anything else is a logged 500 that reveals nothing.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    if (isJetStreamUnavailable(exception)) {
      // A NATS restart or a stream's leader election: nothing was accepted, and the same request with
      // the same Idempotency-Key lands on the same run once it answers again.
      this.logger.warn(`message bus unavailable: ${exception instanceof Error ? exception.message : String(exception)}`);
      response.setHeader('Retry-After', String(BUS_UNAVAILABLE_RETRY_AFTER_SECONDS));
      response.status(HttpStatus.SERVICE_UNAVAILABLE).json({
        error: 'service_unavailable',
        message: 'the message bus is not answering (a restart or a leader election); retry with the same Idempotency-Key',
      });
      return;
    }
    const { status, body } = this.describe(exception);
    response.status(status).json(body);
  }

  private describe(exception: unknown): { status: number; body: Record<string, unknown> } {
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // body-parser's errors reach us wrapped by the Express adapter, the original as `cause`.
      if (isRecord(exception.cause) && exception.cause['type'] === 'entity.parse.failed') {
        return { status, body: { error: 'malformed_json', message: bodyParseFailure(exception.cause['body']) } };
      }
      const payload = exception.getResponse();
      if (isRecord(payload) && !('statusCode' in payload)) return { status, body: payload };
      const message = isRecord(payload) ? payload['message'] : payload;
      return { status, body: { error: errorCodeOf(status), message: Array.isArray(message) ? message.join('; ') : String(message) } };
    }
    if (exception instanceof OpenPawError) {
      const response = RESPONSE_OF_CODE[exception.code];
      if (response !== undefined) return { status: response.status, body: { error: response.error, message: exception.message } };
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: { error: 'internal_error', message: 'internal error' } };
  }
}

/**
 * Why body-parser refused a body: not JSON at all, or JSON that is not an object or array (its
 * strict mode refuses a bare string, number or null; the client should hear which).
 */
function bodyParseFailure(raw: unknown): string {
  if (typeof raw === 'string') {
    try {
      const value: unknown = JSON.parse(raw);
      return `the request body must be a JSON object, not ${value === null ? 'null' : `a ${typeof value}`}`;
    } catch {
      // Not JSON: the general answer below.
    }
  }
  return 'the request body is not valid JSON';
}
