import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPENPAW_ID_KEY, pointIdFor, QdrantVectorIndex } from './qdrant-vector-index.js';
import { VectorDimensionError } from './vector-index.js';

interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

interface StoredPoint {
  vector: number[];
  payload: Record<string, unknown>;
}

/**
 * A local stand-in speaking the subset of Qdrant's REST API (OpenAPI v1.x) the adapter uses, with
 * Qdrant's response envelope `{ result, status, time }`. It stores points and answers queries by
 * cosine, so the adapter's behaviour is checked end to end at the wire level.
 */
class FakeQdrant {
  readonly requests: RecordedRequest[] = [];
  readonly collections = new Map<string, { size: number; distance: string; points: Map<string, StoredPoint>; indexes: string[] }>();
  /** Simulates another replica creating the collection between our existence check and our create. */
  raceOnCreate = false;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://qdrant');
    const body: unknown = raw === '' ? undefined : JSON.parse(raw);
    this.requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), body });
    const reply = (status: number, result: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status < 300 ? { result, status: 'ok', time: 0.0001 } : { status: { error: String(result) }, time: 0.0001 }));
    };
    const match = /^\/collections\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const name = match?.[1] ?? '';
    const rest = match?.[2] ?? '';
    const collection = this.collections.get(name);
    const b = (body ?? {}) as Record<string, unknown>;
    if (req.method === 'GET' && rest === '/exists') return reply(200, { exists: collection !== undefined });
    if (req.method === 'PUT' && rest === '') {
      if (this.raceOnCreate || collection !== undefined) {
        this.raceOnCreate = false;
        this.collections.set(name, { size: 3, distance: 'Cosine', points: new Map(), indexes: [] });
        return reply(409, `Wrong input: Collection \`${name}\` already exists!`);
      }
      const vectors = b.vectors as { size: number; distance: string };
      this.collections.set(name, { size: vectors.size, distance: vectors.distance, points: new Map(), indexes: [] });
      return reply(200, true);
    }
    if (collection === undefined) return reply(404, `Collection \`${name}\` doesn't exist!`);
    if (req.method === 'PUT' && rest === '/index') {
      collection.indexes.push(String(b.field_name));
      return reply(200, { operation_id: 1, status: 'completed' });
    }
    if (req.method === 'PUT' && rest === '/points') {
      for (const point of b.points as { id: string; vector: number[]; payload: Record<string, unknown> }[]) {
        if (point.vector.length !== collection.size) return reply(400, 'Wrong input: Vector dimension error');
        collection.points.set(point.id, { vector: point.vector, payload: point.payload });
      }
      return reply(200, { operation_id: 2, status: 'completed' });
    }
    if (req.method === 'POST' && rest === '/points/delete') {
      for (const id of b.points as string[]) collection.points.delete(id);
      return reply(200, { operation_id: 3, status: 'completed' });
    }
    if (req.method === 'POST' && rest === '/points/query') {
      const query = b.query as number[];
      const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
      const points = [...collection.points.entries()]
        .map(([id, p]) => ({
          id,
          version: 0,
          score: p.vector.reduce((s, x, i) => s + x * (query[i] ?? 0), 0) / (norm(p.vector) * norm(query)),
          payload: b.with_payload === true ? p.payload : null,
        }))
        .sort((x, y) => y.score - x.score)
        .slice(0, Number(b.limit ?? 10));
      return reply(200, { points });
    }
    return reply(404, 'not found');
  }
}

describe('QdrantVectorIndex (wire level, against a local Qdrant stand-in)', () => {
  const qdrant = new FakeQdrant();
  let url: string;

  beforeAll(async () => {
    url = await qdrant.start();
  });

  afterAll(async () => {
    await qdrant.stop();
  });

  beforeEach(() => {
    qdrant.requests.length = 0;
  });

  it('creates the collection once (cosine, embedder dimension, asset_version_id index), then upserts with wait', async () => {
    const index = new QdrantVectorIndex({ url, collection: 'problems', dimension: 3 });
    await index.upsert('av-1', Float32Array.from([3, 4, 0]), { asset_version_id: 'av-1', problem_id: 'p-1' });
    await index.upsert('av-2', Float32Array.from([0, 1, 0]), { asset_version_id: 'av-2' });
    const calls = qdrant.requests.map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual([
      'GET /collections/problems/exists',
      'PUT /collections/problems',
      'PUT /collections/problems/index',
      'PUT /collections/problems/points',
      'PUT /collections/problems/points',
    ]);
    expect(qdrant.requests[1]?.body).toEqual({ vectors: { size: 3, distance: 'Cosine' } });
    expect(qdrant.requests[2]?.body).toEqual({ field_name: 'asset_version_id', field_schema: 'keyword' });
    expect(qdrant.requests[2]?.query).toMatchObject({ wait: 'true' });
    expect(qdrant.requests[3]?.query).toMatchObject({ wait: 'true' });
    expect(qdrant.requests[3]?.body).toEqual({
      points: [{ id: pointIdFor('av-1'), vector: [0.6000000238418579, 0.800000011920929, 0], payload: { asset_version_id: 'av-1', problem_id: 'p-1', [OPENPAW_ID_KEY]: 'av-1' } }],
    });
  });

  it('searches by query and maps points back to our ids and payloads', async () => {
    const index = new QdrantVectorIndex({ url, collection: 'problems', dimension: 3 });
    const hits = await index.search(Float32Array.from([1, 1.4, 0]), 2);
    const query = qdrant.requests.find((r) => r.path === '/collections/problems/points/query');
    expect(query?.body).toEqual({ query: [1, 1.399999976158142, 0], limit: 2, with_payload: true });
    expect(hits.map((h) => h.id)).toEqual(['av-1', 'av-2']);
    expect(hits[0]?.payload).toEqual({ asset_version_id: 'av-1', problem_id: 'p-1' });
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 1);
  });

  it('upserts idempotently: the same id lands on the same point', async () => {
    const index = new QdrantVectorIndex({ url, collection: 'problems', dimension: 3 });
    await index.upsert('av-1', Float32Array.from([3, 4, 0]), { asset_version_id: 'av-1', problem_id: 'p-1' });
    expect(qdrant.collections.get('problems')?.points.size).toBe(2);
    expect(pointIdFor('av-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('deletes by point id with wait', async () => {
    const index = new QdrantVectorIndex({ url, collection: 'problems', dimension: 3 });
    await index.delete('av-2');
    const call = qdrant.requests.find((r) => r.path === '/collections/problems/points/delete');
    expect(call?.body).toEqual({ points: [pointIdFor('av-2')] });
    expect(call?.query).toMatchObject({ wait: 'true' });
    expect((await index.search(Float32Array.from([0, 1, 0]), 5)).map((h) => h.id)).toEqual(['av-1']);
  });

  it('survives losing the creation race to another replica', async () => {
    qdrant.raceOnCreate = true;
    const index = new QdrantVectorIndex({ url, collection: 'raced', dimension: 3 });
    await index.ensureCollection();
    expect(qdrant.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /collections/raced/exists',
      'PUT /collections/raced',
      'GET /collections/raced/exists',
    ]);
  });

  it('checks the dimension before any request', async () => {
    const index = new QdrantVectorIndex({ url, collection: 'problems', dimension: 3 });
    await expect(index.upsert('x', Float32Array.from([1]), { asset_version_id: 'x' })).rejects.toBeInstanceOf(VectorDimensionError);
    expect(qdrant.requests).toHaveLength(0);
  });
});
