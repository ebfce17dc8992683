import {
  demoPairs,
  generateVisualWorld,
  LocalGlyphRecognizer,
  LocalWorldImageSearch,
  photoForUrl,
  renderWorldPhoto,
  type VisualWorld,
} from '@openpaw/providers';
import { startWireServer, type WireServer } from './wire-server.js';

const AMZ_JSON = { 'content-type': 'application/x-amz-json-1.1' };

/**
 * A test's hold on the world's image search, to catch a run mid-way from outside the product: armed by
 * `POST /control/hold` with `{ "afterSearches": N }`, the server answers N more searches and keeps every
 * later one waiting until `POST /control/release`; `GET /control/held` lists the queries waiting, each
 * with whether its caller has hung up since (the service aborted that search).
 */
class SearchGate {
  private answeredBeforeHold: number | undefined;
  private readonly waiting: { readonly query: string; readonly abandoned: AbortSignal; readonly release: () => void }[] = [];

  arm(afterSearches: number): void {
    this.answeredBeforeHold = afterSearches;
  }

  /** Resolves when this search may be answered. */
  async pass(query: string, abandoned: AbortSignal): Promise<void> {
    if (this.answeredBeforeHold === undefined) return;
    if (this.answeredBeforeHold > 0) {
      this.answeredBeforeHold -= 1;
      return;
    }
    await new Promise<void>((release) => this.waiting.push({ query, abandoned, release }));
  }

  held(): readonly { readonly query: string; readonly abandoned: boolean }[] {
    return this.waiting.map((w) => ({ query: w.query, abandoned: w.abandoned.aborted }));
  }

  release(): void {
    this.answeredBeforeHold = undefined;
    for (const waiting of this.waiting.splice(0)) waiting.release();
  }
}

/**
 * The local world behind the paid APIs' wire formats, for end-to-end tests of the real adapters:
 * SerpApi Google Images (`GET /search.json`, `images_results[]` with `original` and `link`) over the
 * world's captions, the photos themselves (`GET /img/<id>.jpg`, rendered with sharp), and Amazon
 * Rekognition `RecognizeCelebrities` (`POST /`, `X-Amz-Target`, base64 `Image.Bytes`) answered by
 * reading the glyph faces from the pixels it is sent. Nothing is keyed by test input: the answers are
 * computed from the world and the bytes. A test may hold the searches (`SearchGate`) to act while a run waits.
 */
export async function startWireWorldServer(world: VisualWorld): Promise<WireServer> {
  const search = new LocalWorldImageSearch(world);
  const recognizer = new LocalGlyphRecognizer(world.people);
  const photos = new Map(world.photos.map((photo) => [photo.id, photo]));
  const gate = new SearchGate();
  const server: WireServer = await startWireServer(async (request) => {
    if (request.method === 'POST' && request.url.pathname === '/control/hold') {
      const { afterSearches } = JSON.parse(request.body.toString('utf8')) as { afterSearches: number };
      gate.arm(afterSearches);
      return { status: 204 };
    }
    if (request.method === 'GET' && request.url.pathname === '/control/held') return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ held: gate.held() }) };
    if (request.method === 'POST' && request.url.pathname === '/control/release') {
      gate.release();
      return { status: 204 };
    }
    if (request.method === 'GET' && request.url.pathname === '/search.json') {
      const query = request.url.searchParams.get('q') ?? '';
      await gate.pass(query, request.abandoned);
      const found = await search.search(query, { limit: 10 });
      const images_results = found.hits.flatMap((hit) => {
        const photo = photoForUrl(world, hit.imageUrl);
        return photo === undefined ? [] : [{ position: hit.position, original: `${server.url}/img/${photo.id}.jpg`, link: `${server.url}/page/${photo.id}`, title: hit.title }];
      });
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ search_metadata: { status: 'Success' }, images_results }) };
    }
    if (request.method === 'GET' && request.url.pathname.startsWith('/img/')) {
      const photo = photos.get(decodeURIComponent(request.url.pathname.slice('/img/'.length, -'.jpg'.length)));
      return photo === undefined ? { status: 404, body: 'no such photo' } : { headers: { 'content-type': 'image/jpeg' }, body: await renderWorldPhoto(photo) };
    }
    if (request.method === 'POST' && request.headers['x-amz-target'] === 'RekognitionService.RecognizeCelebrities') {
      const { Image } = JSON.parse(request.body.toString('utf8')) as { Image: { Bytes: string } };
      const result = await recognizer.recognize(Buffer.from(Image.Bytes, 'base64'));
      const CelebrityFaces = result.celebrities.map((c) => ({
        Urls: [...c.urls],
        Name: c.name,
        Id: c.celebrityId,
        Face: { BoundingBox: { Width: c.box.width, Height: c.box.height, Left: c.box.left, Top: c.box.top }, Confidence: 99.9 },
        MatchConfidence: c.matchConfidence,
      }));
      return { headers: AMZ_JSON, body: JSON.stringify({ CelebrityFaces, UnrecognizedFaces: [] }) };
    }
    return { status: 404, body: 'unexpected' };
  });
  return server;
}

/**
 * As a process (end-to-end tests spawn it from dist/): `node wire-world-server.js <seed>` prints one JSON
 * line `{ url, demo }` (the world's demo pairs by name) and serves until stopped.
 */
if (process.argv[1]?.endsWith('wire-world-server.js') === true) {
  const world = generateVisualWorld({ seed: Number(process.argv[2] ?? 7) });
  const server = await startWireWorldServer(world);
  const { threeHop, noPath } = demoPairs(world);
  const names = ([a, b]: readonly [number, number]) => ({ from: world.people[a]?.name ?? '', to: world.people[b]?.name ?? '' });
  console.log(JSON.stringify({ wireWorld: { url: server.url, demo: { threeHop: names(threeHop), noPath: names(noPath) } } }));
}
