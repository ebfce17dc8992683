import { createHash, type KeyObject, verify } from 'node:crypto';
import { type RecordedRequest, startStubServer, type StubResponse, type StubServer } from './stub-server.js';

interface StoredObject {
  readonly data: Buffer;
  readonly resource: Record<string, unknown>;
}

export interface FakeGcsServer extends StubServer {
  readonly objects: Map<string, StoredObject>;
  /** Answer the next `count` API requests with this status (for retry tests). */
  failNext(count: number, status: number): void;
}

/**
 * The parts of the GCS JSON API that `@google-cloud/storage` uses for the blob port, over
 * node:http: multipart and media uploads (`POST /upload/storage/v1/b/:bucket/o`), object metadata
 * and media (`GET /storage/v1/b/:bucket/o/:object[?alt=media]`), delete, list with prefix and page
 * tokens, and V4 signed-URL downloads (`GET /:bucket/:object?X-Goog-Signature=...`) whose signature
 * it checks against `signerPublicKey`.
 */
export async function startFakeGcsServer(options: { readonly signerPublicKey?: KeyObject } = {}): Promise<FakeGcsServer> {
  const objects = new Map<string, StoredObject>();
  let failures: { count: number; status: number } = { count: 0, status: 503 };
  let generation = 1_700_000_000_000_000;

  const handler = (request: RecordedRequest): StubResponse => {
    const { pathname, searchParams } = request.url;
    if (request.url.searchParams.has('X-Goog-Signature')) return signedDownload(request);
    if (failures.count > 0) {
      failures.count -= 1;
      return apiError(failures.status, 'backendError');
    }
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(pathname);
    if (upload !== null && request.method === 'POST') return insert(upload[1]!, request);
    const object = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(pathname);
    if (object !== null) {
      const id = `${object[1]!}/${decodeURIComponent(object[2]!)}`;
      const stored = objects.get(id);
      const wanted = searchParams.get('generation');
      if (stored === undefined || (wanted !== null && wanted !== stored.resource['generation'])) return apiError(404, 'notFound');
      if (request.method === 'DELETE') {
        objects.delete(id);
        return { status: 204 };
      }
      if (searchParams.get('alt') === 'media') {
        return {
          status: 200,
          headers: {
            'content-type': String(stored.resource['contentType']),
            'x-goog-hash': `md5=${String(stored.resource['md5Hash'])}`,
            'x-goog-generation': String(stored.resource['generation']),
          },
          body: stored.data,
        };
      }
      return { body: stored.resource };
    }
    const list = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(pathname);
    if (list !== null && request.method === 'GET') {
      const prefix = `${list[1]!}/${searchParams.get('prefix') ?? ''}`;
      const max = Number(searchParams.get('maxResults') ?? '1000');
      const after = searchParams.get('pageToken');
      const ids = [...objects.keys()].filter((id) => id.startsWith(prefix) && (after === null || id > after)).sort();
      const page = ids.slice(0, max);
      return {
        body: {
          kind: 'storage#objects',
          items: page.map((id) => objects.get(id)!.resource),
          ...(ids.length > max ? { nextPageToken: page.at(-1) } : {}),
        },
      };
    }
    return apiError(404, 'notFound');
  };

  function insert(bucket: string, request: RecordedRequest): StubResponse {
    const uploadType = request.url.searchParams.get('uploadType');
    let metadata: Record<string, unknown> = {};
    let data: Buffer;
    if (uploadType === 'multipart') {
      const boundary = /boundary="?([^";]+)"?/.exec(String(request.headers['content-type']))?.[1];
      if (boundary === undefined) return apiError(400, 'invalid');
      const parts = multipartParts(request.body, boundary);
      metadata = JSON.parse(parts[0]?.body.toString('utf8') ?? '{}') as Record<string, unknown>;
      data = parts[1]?.body ?? Buffer.alloc(0);
      metadata['contentType'] ??= parts[1]?.headers['content-type'];
    } else if (uploadType === 'media') {
      data = request.body;
      metadata['contentType'] = request.headers['content-type'];
    } else {
      return apiError(400, `uploadType ${String(uploadType)} is not implemented by the fake`);
    }
    const name = request.url.searchParams.get('name') ?? (metadata['name'] as string | undefined);
    if (name === undefined) return apiError(400, 'required');
    generation += 1;
    const now = new Date().toISOString();
    const resource = {
      kind: 'storage#object',
      id: `${bucket}/${name}/${generation}`,
      name,
      bucket,
      generation: String(generation),
      metageneration: '1',
      contentType: metadata['contentType'] ?? 'application/octet-stream',
      size: String(data.length),
      md5Hash: createHash('md5').update(data).digest('base64'),
      timeCreated: now,
      updated: now,
      ...(metadata['metadata'] !== undefined ? { metadata: metadata['metadata'] } : {}),
    };
    objects.set(`${bucket}/${name}`, { data, resource });
    return { body: resource };
  }

  function signedDownload(request: RecordedRequest): StubResponse {
    const publicKey = options.signerPublicKey;
    if (publicKey === undefined) return xmlError(403, 'AccessDenied');
    const params = request.url.searchParams;
    const query = [...params.entries()]
      .filter(([key]) => key !== 'X-Goog-Signature')
      .map(([key, value]) => [rfc3986(key), rfc3986(value)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([key, value]) => `${key}=${value}`)
      .join('&');
    const signedHeaders = params.get('X-Goog-SignedHeaders') ?? '';
    const headers = signedHeaders
      .split(';')
      .map((name) => `${name}:${name === 'host' ? request.url.hostname : String(request.headers[name] ?? '')}\n`)
      .join('');
    const canonicalRequest = [request.method, request.url.pathname, query, headers, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
    const date = params.get('X-Goog-Date') ?? '';
    const scope = (params.get('X-Goog-Credential') ?? '').split('/').slice(1).join('/');
    const stringToSign = ['GOOG4-RSA-SHA256', date, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
    const signature = Buffer.from(params.get('X-Goog-Signature') ?? '', 'hex');
    if (!verify('RSA-SHA256', Buffer.from(stringToSign), publicKey, signature)) return xmlError(403, 'SignatureDoesNotMatch');
    const signedAt = Date.parse(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (Date.now() > signedAt + Number(params.get('X-Goog-Expires')) * 1000) return xmlError(400, 'ExpiredToken');
    const [, bucket, ...rest] = request.url.pathname.split('/');
    const stored = objects.get(`${bucket}/${decodeURIComponent(rest.join('/'))}`);
    if (stored === undefined) return xmlError(404, 'NoSuchKey');
    return { status: 200, headers: { 'content-type': String(stored.resource['contentType']) }, body: stored.data };
  }

  const server = await startStubServer(handler);
  return {
    ...server,
    objects,
    failNext: (count, status) => {
      failures = { count, status };
    },
  };
}

function apiError(status: number, reason: string): StubResponse {
  return { status, body: { error: { code: status, message: reason, errors: [{ domain: 'global', reason, message: reason }] } } };
}

function xmlError(status: number, code: string): StubResponse {
  return { status, headers: { 'content-type': 'application/xml' }, body: `<?xml version='1.0' encoding='UTF-8'?><Error><Code>${code}</Code></Error>` };
}

function multipartParts(body: Buffer, boundary: string): { headers: Record<string, string>; body: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    let part = body.subarray(start + delimiter.length, next);
    if (part.subarray(0, 2).toString() === '\r\n') part = part.subarray(2);
    if (part.subarray(-2).toString() === '\r\n') part = part.subarray(0, -2);
    const split = part.indexOf('\r\n\r\n');
    const headerText = split === -1 ? '' : part.subarray(0, split).toString('utf8');
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    parts.push({ headers, body: split === -1 ? part : part.subarray(split + 4) });
    start = next;
  }
  return parts;
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
