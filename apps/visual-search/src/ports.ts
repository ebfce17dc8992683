import type { CelebrityRecognizer, ImageFetcher, ImageSearch, LlmClient } from '@openpaw/providers';
import type { EvidenceCache } from './domain/evidence-cache.js';
import type { RunMemory } from './memory/run-memory.js';

/** Everything a search-and-recognise step needs. */
export interface VisualStepPorts {
  readonly search: ImageSearch;
  readonly fetcher: ImageFetcher;
  readonly recognizer: CelebrityRecognizer;
  readonly memory: RunMemory;
  readonly cache: EvidenceCache;
}

export interface SelectionPorts {
  readonly llm: LlmClient;
  readonly memory: RunMemory;
}
