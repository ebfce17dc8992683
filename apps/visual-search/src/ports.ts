import type { CelebrityRecognizer, ImageFetcher, ImageSearch, LlmClient } from '@openpaw/providers';
import type { EvidenceCache } from './domain/evidence-cache.js';
import type { LocalWorldRoster } from './domain/local-world-roster.js';
import type { RunMemory } from './memory/run-memory.js';
import type { EvidenceThumbnails } from './observation/evidence-thumbnails.js';
import type { TakedownList } from './takedown/takedown-list.js';

/** Everything a search-and-recognise step needs. */
export interface VisualStepPorts {
  readonly search: ImageSearch;
  readonly fetcher: ImageFetcher;
  readonly recognizer: CelebrityRecognizer;
  readonly memory: RunMemory;
  readonly cache: EvidenceCache;
  /** Where evidence photos' thumbnails go (the blob store every service shares; the gateway serves them). */
  readonly thumbnails: EvidenceThumbnails;
  /** People taken down (never recognised, pictured or verified again). */
  readonly takedowns: TakedownList;
  /** The local demo world the search runs over, when it is the offline default (replies say so). */
  readonly localWorld?: LocalWorldRoster;
}

export interface SelectionPorts {
  readonly llm: LlmClient;
  readonly memory: RunMemory;
}
