import type { ArgumentsHost } from '@nestjs/common';
import { HttpErrorFilter } from '../http-error.filter.js';

/** What the gateway's error filter answers for `exception`: the status and the JSON body. */
export function filterResponse(exception: unknown): { status: number; body: unknown } {
  const answer: { status: number; body: unknown } = { status: 0, body: undefined };
  const response = {
    headersSent: false,
    status(status: number) {
      answer.status = status;
      return response;
    },
    json(body: unknown) {
      answer.body = body;
    },
  };
  // A stand-in for Nest's host: the filter reads only the HTTP response.
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new HttpErrorFilter().catch(exception, host);
  return answer;
}
