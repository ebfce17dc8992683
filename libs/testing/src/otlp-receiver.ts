import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as an OTLP/HTTP receiver sees it. */
export interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to `<endpoint>/v1/traces`). */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  close(): Promise<void>;
}

/**
 * A local OTLP/HTTP trace receiver speaking the protobuf encoding the SDK's exporter sends
 * (`ExportTraceServiceRequest` of opentelemetry-proto, decoded field by field from the wire format),
 * so a test sees every span the platform's processes export, as a collector would.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        spans.push(...decodeExportTraceServiceRequest(request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw));
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Field {
  readonly number: number;
  readonly wireType: number;
  /** Length-delimited payload, or undefined for scalars. */
  readonly bytes?: Buffer;
  readonly varint?: bigint;
}

/** The fields of one protobuf message, in order (repeated fields appear once per element). */
function fieldsOf(message: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = message[at];
      if (byte === undefined) throw new Error('truncated varint');
      at += 1;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7n;
    }
  };
  while (at < message.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    switch (wireType) {
      case 0:
        fields.push({ number, wireType, varint: varint() });
        break;
      case 1:
        at += 8;
        fields.push({ number, wireType });
        break;
      case 2: {
        const length = Number(varint());
        fields.push({ number, wireType, bytes: message.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        at += 4;
        fields.push({ number, wireType });
        break;
      default:
        throw new Error(`unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

const messages = (fields: readonly Field[], number: number): Buffer[] =>
  fields.filter((f) => f.number === number && f.bytes !== undefined).map((f) => f.bytes as Buffer);
const text = (fields: readonly Field[], number: number): string => messages(fields, number)[0]?.toString('utf8') ?? '';
const hex = (fields: readonly Field[], number: number): string => messages(fields, number)[0]?.toString('hex') ?? '';

/** KeyValue attributes whose AnyValue is a string (field 1) or an int (field 3), as strings. */
function attributesOf(fields: readonly Field[], number: number): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const keyValue of messages(fields, number)) {
    const kv = fieldsOf(keyValue);
    const value = messages(kv, 2)[0];
    if (value === undefined) continue;
    const any = fieldsOf(value);
    const stringValue = messages(any, 1)[0];
    const intValue = any.find((f) => f.number === 3)?.varint;
    if (stringValue !== undefined) attributes[text(kv, 1)] = stringValue.toString('utf8');
    else if (intValue !== undefined) attributes[text(kv, 1)] = intValue.toString();
  }
  return attributes;
}

/** ExportTraceServiceRequest { resource_spans = 1 { resource = 1 { attributes = 1 }, scope_spans = 2 { spans = 2 } } }. */
export function decodeExportTraceServiceRequest(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(fieldsOf(body), 1)) {
    const rs = fieldsOf(resourceSpans);
    const resource = messages(rs, 1)[0];
    const service = resource === undefined ? '' : (attributesOf(fieldsOf(resource), 1)['service.name'] ?? '');
    for (const scopeSpans of messages(rs, 2)) {
      for (const span of messages(fieldsOf(scopeSpans), 2)) {
        const s = fieldsOf(span);
        spans.push({
          service,
          traceId: hex(s, 1),
          spanId: hex(s, 2),
          parentSpanId: hex(s, 4),
          name: text(s, 5),
          kind: Number(s.find((f) => f.number === 6)?.varint ?? 0n),
          attributes: attributesOf(s, 9),
        });
      }
    }
  }
  return spans;
}
