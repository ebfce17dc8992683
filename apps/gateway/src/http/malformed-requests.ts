import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser says about a request it could not read (`clientError`'s error). */
interface ParseError extends Error {
  readonly code?: string;
  /** llhttp's words, e.g. "Invalid header value char". */
  readonly reason?: string;
  /** The bytes the parser was given when it failed, and how far into them it read: the offending byte is at `bytesParsed`. */
  readonly rawPacket?: Buffer;
  readonly bytesParsed?: number;
}

/** Names of the control bytes HTTP refuses that a client is most likely to send by mistake. */
const CONTROL_NAMES: Readonly<Record<number, string>> = { 0x00: 'NUL', 0x07: 'BEL', 0x08: 'BS', 0x09: 'TAB', 0x0a: 'LF', 0x0d: 'CR', 0x1b: 'ESC', 0x20: 'space', 0x7f: 'DEL' };

/** Parser errors of the request line (method, target, version). */
const REQUEST_LINE_CODES = new Set(['HPE_INVALID_METHOD', 'HPE_INVALID_URL', 'HPE_INVALID_VERSION', 'HPE_INVALID_CONSTANT']);

/**
 * The byte the parser stopped at and where it is (the request line, a header's name, the value of a
 * named header), when the error carries the packet: "byte 0x00 (NUL) in the request line".
 */
function offendingByte(error: ParseError): string | undefined {
  const packet = error.rawPacket;
  const offset = error.bytesParsed;
  if (packet === undefined || offset === undefined || offset < 0 || offset >= packet.length) return undefined;
  const byte = packet[offset]!;
  const printable = byte > 0x20 && byte < 0x7f && byte !== 0x22;
  const name = `byte 0x${byte.toString(16).padStart(2, '0')} (${printable ? `"${String.fromCharCode(byte)}"` : (CONTROL_NAMES[byte] ?? 'a control byte')})`;
  if (REQUEST_LINE_CODES.has(error.code ?? '')) return `${name} in the request line`;
  if (error.code !== 'HPE_INVALID_HEADER_TOKEN') return name;
  // The header's line up to the byte: its name is what comes before the colon (the chunk may start mid-line).
  const before = packet.subarray(0, offset).toString('latin1');
  const lineStart = before.lastIndexOf('\n');
  const line = lineStart === -1 ? undefined : before.slice(lineStart + 1);
  if (line === undefined) return name;
  const colon = line.indexOf(':');
  // Echoed to the caller: cut to a readable length.
  const shown = (text: string): string => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  return colon === -1 ? `${name} in a header name (after "${shown(line)}")` : `${name} in the value of the header ${shown(line.slice(0, colon).trim())}`;
}

/** Node's own mapping for the parser errors that are not a plain 400 (its default `clientError` answer). */
const STATUS_OF_CODE: Readonly<Record<string, { readonly status: number; readonly text: string; readonly error: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', error: 'request_header_fields_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', error: 'request_timeout' },
};

/**
 * A sentence for the caller: the parser's reason, the byte it stopped at and where (request line,
 * header name, which header's value), and for a bad header the likely cause (a control byte such as NUL).
 */
export function malformedRequestMessage(error: ParseError): string {
  const reason = error.reason ?? error.message.replace(/^Parse Error:\s*/, '');
  const hint = error.code === 'HPE_INVALID_HEADER_TOKEN' ? ' (a header name or value holds a byte HTTP does not allow there, such as NUL or another control character)' : '';
  const byte = offendingByte(error);
  return `the HTTP request could not be read: ${reason}${byte === undefined ? '' : `: ${byte}`}${hint}`;
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
