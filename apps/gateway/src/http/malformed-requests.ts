import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser says about a request it could not read (`clientError`'s error). */
interface ParseError extends Error {
  readonly code?: string;
  /** llhttp's words, e.g. "Invalid header value char". */
  readonly reason?: string;
}

/** Node's own mapping for the parser errors that are not a plain 400 (its default `clientError` answer). */
const STATUS_OF_CODE: Readonly<Record<string, { readonly status: number; readonly text: string; readonly error: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', error: 'request_header_fields_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', error: 'request_timeout' },
};

/** A sentence for the caller: the parser's reason, and for a bad header value the likely cause (a control byte such as NUL). */
export function malformedRequestMessage(error: ParseError): string {
  const reason = error.reason ?? error.message.replace(/^Parse Error:\s*/, '');
  const hint = error.code === 'HPE_INVALID_HEADER_TOKEN' ? ' (a header name or value holds a byte HTTP does not allow there, such as NUL or another control character)' : '';
  return `the HTTP request could not be read: ${reason}${hint}`;
}

/**
 * Answers a request Node's HTTP parser refuses (a NUL or other control byte in a header, a malformed
 * request line, headers too large) with the gateway's JSON error body naming the problem, instead
 * of Node's bare `400 Bad Request` with no body. The request never reaches a route, so nothing is
 * published or stored; the connection is closed (the parser's state is lost).
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: ParseError, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, text, error: code } = STATUS_OF_CODE[error.code ?? ''] ?? { status: 400, text: 'Bad Request', error: 'bad_request' };
    const body = JSON.stringify({ error: code, message: malformedRequestMessage(error) });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
