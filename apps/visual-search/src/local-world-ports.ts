import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateVisualWorld, LocalFsBlobStore, LocalGlyphRecognizer, LocalWorldImageFetcher, LocalWorldImageSearch, type VisualWorld } from '@openpaw/providers';
import { InMemoryEvidenceCache } from './domain/evidence-cache.js';
import { localWorldRoster } from './domain/local-world-roster.js';
import { InMemoryRunMemory } from './memory/in-memory-run-memory.js';
import { EvidenceThumbnails } from './observation/evidence-thumbnails.js';
import type { VisualStepPorts } from './ports.js';
import { TakedownList } from './takedown/takedown-list.js';

/** A local blob store in a fresh temporary directory (the service's own backend, on disk). */
export function temporaryBlobStore(): LocalFsBlobStore {
  return new LocalFsBlobStore({ rootDir: mkdtempSync(join(tmpdir(), 'openpaw-visual-blobs-')), shareSecret: 'visual-search-local-world', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
}

/**
 * The service's step ports over the local world (the offline default), with memory and cache in
 * process and evidence thumbnails in `blobs` (a fresh temporary directory unless given). Not in
 * `testing/`: the public module exports it (benches), and the takedown tool, which the image runs,
 * loads that module, while the image's build deletes `testing/` folders.
 */
export function localWorldPorts(seed = 7, blobs: LocalFsBlobStore = temporaryBlobStore()): VisualStepPorts & { readonly world: VisualWorld; readonly memory: InMemoryRunMemory; readonly cache: InMemoryEvidenceCache; readonly blobs: LocalFsBlobStore } {
  const world = generateVisualWorld({ seed });
  return {
    blobs,
    thumbnails: new EvidenceThumbnails(blobs),
    takedowns: new TakedownList(blobs),
    world,
    search: new LocalWorldImageSearch(world),
    fetcher: new LocalWorldImageFetcher(world),
    recognizer: new LocalGlyphRecognizer(world.people),
    memory: new InMemoryRunMemory(),
    cache: new InMemoryEvidenceCache(),
    localWorld: localWorldRoster(world),
  };
}
