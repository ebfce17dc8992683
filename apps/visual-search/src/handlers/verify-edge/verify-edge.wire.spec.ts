import { EdgeVerified, EVIDENCE_THUMBNAIL_MAX_SIDE, evidenceThumbnailKey } from '@openpaw/contracts';
import { generateVisualWorld, RekognitionRecognizer, renderWorldPhoto, SafeImageFetcher, SerpApiImageSearch } from '@openpaw/providers';
import sharp from 'sharp';
import { InMemoryEvidenceCache } from '../../domain/evidence-cache.js';
import { InMemoryRunMemory } from '../../memory/in-memory-run-memory.js';
import { TakedownList } from '../../takedown/takedown-list.js';
import { EvidenceThumbnails } from '../../observation/evidence-thumbnails.js';
import { temporaryBlobStore } from '../../local-world-ports.js';
import { startWireServer, type WireResponse, type WireServer } from '../../testing/wire-server.js';
import { VerifyEdgeHandler } from './verify-edge.handler.js';

const AMZ_JSON = { 'content-type': 'application/x-amz-json-1.1' };
const celebrity = (id: string, name: string, confidence: number, width: number) => ({
  Urls: [],
  Name: name,
  Id: id,
  Face: { BoundingBox: { Width: width, Height: width, Left: 0.1, Top: 0.1 }, Confidence: 99.9 },
  MatchConfidence: confidence,
});

/** Real pictures (any will do: Rekognition is scripted); two different local-world photos. */
async function photo(index: number): Promise<Buffer> {
  return renderWorldPhoto(generateVisualWorld({ seed: 11 }).photos[index]!);
}

describe('VerifyEdge end to end over the wire: SerpApi Google Images, image hosts through the safe fetcher, Rekognition', () => {
  let server: WireServer;
  const rekognitionReplies: object[] = [];
  beforeAll(async () => {
    const images = [await photo(0), await photo(5)];
    const resizedCopy = await sharp(images[1]).resize(300).jpeg({ quality: 60 }).toBuffer();
    let serpCalls = 0;
    server = await startWireServer((request): WireResponse => {
      if (request.method === 'GET' && request.url.pathname === '/search.json') {
        serpCalls += 1;
        if (serpCalls === 1) return { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: JSON.stringify({ error: 'Too many requests' }) };
        const results = [1, 2, 3, 4].map((n) => ({ position: n, original: `${server.url}/img/${n}.jpg`, link: `https://news.example/${n}`, title: `photo ${n}`, thumbnail: `${server.url}/t/${n}` }));
        return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ search_metadata: { status: 'Success' }, images_results: results }) };
      }
      if (request.method === 'GET' && request.url.pathname.startsWith('/img/')) {
        const n = Number(request.url.pathname.slice(5, -4));
        if (n === 4) return { status: 404, body: 'gone' };
        return { headers: { 'content-type': 'image/jpeg' }, body: n === 3 ? resizedCopy : images[n - 1] };
      }
      if (request.method === 'POST' && request.headers['x-amz-target'] === 'RekognitionService.RecognizeCelebrities') {
        const next = rekognitionReplies.shift();
        return next === undefined ? { status: 500, headers: AMZ_JSON, body: '{"__type":"InternalServerError"}' } : { headers: AMZ_JSON, body: JSON.stringify(next) };
      }
      return { status: 404, body: 'unexpected' };
    });
  });
  afterAll(() => server.close());

  it('verifies on the second image, recognises the resized copy of it not at all, skips an image host that fails, and stores the evidence thumbnail', async () => {
    rekognitionReplies.push({ CelebrityFaces: [celebrity('1abc', 'Ada Lovelace', 99.1, 0.3)], UnrecognizedFaces: [] });
    rekognitionReplies.push({ CelebrityFaces: [celebrity('2def', 'Charles Babbage', 93.5, 0.2), celebrity('1abc', 'Ada Lovelace', 98.2, 0.25)], UnrecognizedFaces: [] });
    const recognizer = new RekognitionRecognizer({ region: 'us-east-1', endpoint: server.url, credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' } });
    const blobs = temporaryBlobStore();
    const handler = new VerifyEdgeHandler({
      thumbnails: new EvidenceThumbnails(blobs),
      takedowns: new TakedownList(blobs),
      search: new SerpApiImageSearch({ apiKey: 'serp-key', baseUrl: server.url, retry: { baseDelayMs: 5 } }),
      fetcher: new SafeImageFetcher({ allowAddressClasses: ['loopback'] }),
      recognizer,
      memory: new InMemoryRunMemory(),
      cache: new InMemoryEvidenceCache(),
    });
    const reply = await handler.execute({
      commandId: 'cmd-wire',
      data: {
        sessionId: 's',
        runId: '9b9b9b9b-2b1c-4c1e-9a55-3c3c9d1f8a10',
        step: 1,
        from: { name: 'Ada Lovelace' },
        to: { name: 'Charles Babbage' },
        queries: ['Ada Lovelace Charles Babbage'],
        imagesPerQuery: 5,
        threshold: 80,
        budget: { searchCalls: 4, recognitionCalls: 20 },
      },
    });
    recognizer.destroy();
    expect(reply).toMatchObject({
      message: EdgeVerified,
      data: {
        edge: {
          from: { celebrityId: '1abc', name: 'Ada Lovelace' },
          to: { celebrityId: '2def', name: 'Charles Babbage' },
          edgeConf: 93.5,
          evidence: [{ imageUrl: `${server.url}/img/2.jpg`, sourcePageUrl: 'https://news.example/2', confidenceFrom: 98.2, confidenceTo: 93.5 }],
        },
        usage: { searchCalls: 1, recognitionCalls: 2, imagesSkipped: 1, cacheHit: false },
      },
    });
    const paths = server.requests.map((r) => `${r.method} ${r.url.pathname}`);
    expect(paths.filter((p) => p === 'GET /search.json')).toHaveLength(2);
    expect(paths.filter((p) => p === 'POST /')).toHaveLength(2);
    expect(paths).toContain('GET /img/4.jpg');
    // The evidence photo, fetched once through the SSRF-safe fetcher, is kept as a bounded JPEG thumbnail the gateway serves.
    const [evidence] = (reply.data as { edge: { evidence: { phash: string; thumbnailKey?: string }[] } }).edge.evidence;
    expect(evidence?.thumbnailKey).toBe(evidenceThumbnailKey(evidence?.phash ?? ''));
    const stored = await blobs.get(evidence?.thumbnailKey ?? '');
    expect(stored.info.contentType).toBe('image/jpeg');
    const metadata = await sharp(stored.body).metadata();
    expect(metadata.format).toBe('jpeg');
    expect(Math.max(metadata.width, metadata.height)).toBeLessThanOrEqual(EVIDENCE_THUMBNAIL_MAX_SIDE);
  });
});
