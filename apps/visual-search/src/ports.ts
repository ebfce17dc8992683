import type { CelebrityRecognizer, ImageFetcher, ImageSearch, LlmClient } from '@openpaw/providers';
import type { EvidenceCache } from './domain/evidence-cache.js';
import type { RunMemory } from './memory/run-memory.js';

/** Injection tokens of the visual-search service's ports. */
export const VISUAL_IMAGE_SEARCH = Symbol('openpaw.visual.image-search');
export const VISUAL_IMAGE_FETCHER = Symbol('openpaw.visual.image-fetcher');
export const VISUAL_RECOGNIZER = Symbol('openpaw.visual.recognizer');
export const VISUAL_RUN_MEMORY = Symbol('openpaw.visual.run-memory');
export const VISUAL_EVIDENCE_CACHE = Symbol('openpaw.visual.evidence-cache');
export const VISUAL_LLM = Symbol('openpaw.visual.llm');

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
