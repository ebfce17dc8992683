export { LocalGlyphRecognizer, type GlyphIdentity } from './glyph-recognizer.js';
export { LocalWorldImageSearch } from './local-image-search.js';
export { LocalWorldImageFetcher } from './local-world-fetcher.js';
export { renderWorldPhoto } from './render-photo.js';
export {
  generateVisualWorld,
  LOCAL_WORLD_SCHEME,
  photoForUrl,
  photoPageUrl,
  photoUrl,
  type VisualWorld,
  type WorldFace,
  type WorldOptions,
  type WorldPerson,
  type WorldPhoto,
  visualWorldHash,
} from './world.js';
export { clearCoAppearances, demoPairs, hopDistance, pairsAtDistance } from './world-graph.js';
