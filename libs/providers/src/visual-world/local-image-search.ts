import { ProviderError } from '../llm/errors.js';
import type { ImageSearch, ImageSearchOptions, ImageSearchResult } from '../image-search/port.js';
import { stableHash } from './prng.js';
import { photoPageUrl, photoUrl, type VisualWorld } from './world.js';

function normalise(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The local image search (`local/visual-world`): a text search over the captions of the world's photo
 * pages, as an engine indexes the text around an image. People named in the query are matched by full
 * name; photos whose caption names more of them rank first, other words of the query ("event",
 * "awards night") rank captions containing them higher, and the rest of the order is a hash of query
 * and photo (so different queries surface different photos). It never looks at pixels, so its hits
 * carry the caption's mistakes: someone named in a caption may not be in the photo.
 */
export class LocalWorldImageSearch implements ImageSearch {
  readonly provider = 'local/visual-world';
  readonly local = true;
  private readonly captions: string[];
  private readonly names: string[];

  constructor(private readonly world: VisualWorld) {
    this.captions = world.photos.map((p) => ` ${normalise(p.caption)} `);
    this.names = world.people.map((p) => normalise(p.name));
  }

  search(query: string, options: ImageSearchOptions): Promise<ImageSearchResult> {
    if (options.signal?.aborted === true) return Promise.reject(new ProviderError('aborted', 'local', 'request aborted by the caller'));
    let rest = ` ${normalise(query)} `;
    const named: number[] = [];
    this.names.forEach((name, index) => {
      if (rest.includes(` ${name} `)) {
        named.push(index);
        rest = rest.replace(` ${name} `, ' ');
      }
    });
    const words = rest.split(' ').filter((w) => w.length > 3);
    const scored = this.world.photos
      .map((photo, i) => {
        const mentioned = named.filter((p) => photo.mentions.includes(p)).length;
        const wordHits = words.filter((w) => this.captions[i]?.includes(` ${w}`) === true).length;
        return { photo, mentioned, wordHits, tie: stableHash(`${normalise(query)}|${photo.id}`) };
      })
      .filter((s) => s.mentioned > 0)
      .sort((a, b) => b.mentioned - a.mentioned || b.wordHits - a.wordHits || a.tie - b.tie);
    const hits = scored.slice(0, options.limit).map((s, i) => ({
      position: i + 1,
      imageUrl: photoUrl(this.world, s.photo),
      sourcePageUrl: photoPageUrl(this.world, s.photo),
      title: s.photo.caption,
      width: s.photo.width,
      height: s.photo.height,
    }));
    return Promise.resolve({ provider: this.provider, local: true, query, hits });
  }
}
