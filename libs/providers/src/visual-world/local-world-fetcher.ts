import { UrlFetchError } from '../web/safe-fetch.js';
import type { FetchedImage, ImageFetcher } from '../recognition/image-fetcher.js';
import { renderWorldPhoto } from './render-photo.js';
import { LOCAL_WORLD_SCHEME, photoForUrl, type VisualWorld } from './world.js';

/** Serves `local-world://` photo URLs by rendering the photo; any other URL goes to `fallback` (the safe fetcher). */
export class LocalWorldImageFetcher implements ImageFetcher {
  constructor(
    private readonly world: VisualWorld,
    private readonly fallback?: ImageFetcher,
  ) {}

  async fetch(url: string, options: { readonly signal?: AbortSignal } = {}): Promise<FetchedImage> {
    if (!url.startsWith(LOCAL_WORLD_SCHEME)) {
      if (this.fallback === undefined) throw new UrlFetchError('unsafe_url', 'only local-world URLs are served offline');
      return this.fallback.fetch(url, options);
    }
    const photo = photoForUrl(this.world, url);
    if (photo === undefined) throw new UrlFetchError('fetch_failed', `no such photo in local world ${this.world.seed}`);
    return { bytes: await renderWorldPhoto(photo), contentType: 'image/jpeg', finalUrl: url };
  }
}
