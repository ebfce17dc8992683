import type { ArgumentsHost } from '@nestjs/common';
import { HttpErrorFilter } from '../http-error.filter.js';

/** What the gateway's error filter answers for `exception`: the status, the JSON body and any header it set. */
export function filterResponse(exception: unknown): { status: number; body: unknown; headers?: Record<string, string> } {
  const answer: { status: number; body: unknown; headers?: Record<string, string> } = { status: 0, body: undefined };
  const response = {
    headersSent: false,
    setHeader(name: string, value: string) {
      answer.headers = { ...answer.headers, [name]: value };
      return response;
    },
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
