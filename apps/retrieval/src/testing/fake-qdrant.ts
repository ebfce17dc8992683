import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Collection {
  readonly size: number;
  readonly points: Map<string, { vector: number[]; payload: Record<string, unknown> }>;
}

/**
 * A local stand-in for Qdrant speaking the part of its REST API (OpenAPI v1.x, response envelope
 * `{ result, status, time }`) the retrieval service calls: collection exists / create, payload index,
 * upsert, delete and query points, answered by exact cosine. For tests of the service's Qdrant wiring
 * where no real Qdrant (Docker) is available; the adapter itself is tested at the wire level in the domain.
 */
export class FakeQdrant {
  readonly collections = new Map<string, Collection>();
  readonly requests: string[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
    const url = new URL(req.url ?? '/', 'http://qdrant');
    this.requests.push(`${req.method ?? ''} ${url.pathname}`);
    const reply = (status: number, result: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status < 300 ? { result, status: 'ok', time: 0.0001 } : { status: { error: String(result) }, time: 0.0001 }));
    };
    const match = /^\/collections\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const name = match?.[1] ?? '';
    const rest = match?.[2] ?? '';
    const collection = this.collections.get(name);
    if (req.method === 'GET' && rest === '/exists') return reply(200, { exists: collection !== undefined });
    if (req.method === 'PUT' && rest === '') {
      if (collection !== undefined) return reply(409, `Collection \`${name}\` already exists!`);
      this.collections.set(name, { size: (body['vectors'] as { size: number }).size, points: new Map() });
      return reply(200, true);
    }
    if (collection === undefined) return reply(404, `Collection \`${name}\` doesn't exist!`);
    if (req.method === 'PUT' && rest === '/index') return reply(200, { operation_id: 1, status: 'completed' });
    if (req.method === 'PUT' && rest === '/points') {
      for (const point of body['points'] as { id: string; vector: number[]; payload: Record<string, unknown> }[]) {
        if (point.vector.length !== collection.size) return reply(400, 'Wrong input: Vector dimension error');
        collection.points.set(point.id, { vector: point.vector, payload: point.payload });
      }
      return reply(200, { operation_id: 2, status: 'completed' });
    }
    if (req.method === 'POST' && rest === '/points/delete') {
      for (const id of body['points'] as string[]) collection.points.delete(id);
      return reply(200, { operation_id: 3, status: 'completed' });
    }
    if (req.method === 'POST' && rest === '/points/query') {
      const query = body['query'] as number[];
      const norm = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
      const points = [...collection.points.entries()]
        .map(([id, p]) => ({
          id,
          version: 0,
          score: p.vector.reduce((s, x, i) => s + x * (query[i] ?? 0), 0) / (norm(p.vector) * norm(query)),
          payload: body['with_payload'] === true ? p.payload : null,
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, Number(body['limit'] ?? 10));
      return reply(200, { points });
    }
    return reply(404, 'not found');
  }
}
