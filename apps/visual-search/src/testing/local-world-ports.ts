import { generateVisualWorld, LocalGlyphRecognizer, LocalWorldImageFetcher, LocalWorldImageSearch, type VisualWorld } from '@openpaw/providers';
import { InMemoryEvidenceCache } from '../domain/evidence-cache.js';
import { localWorldRoster } from '../domain/local-world-roster.js';
import { InMemoryRunMemory } from '../memory/in-memory-run-memory.js';
import type { VisualStepPorts } from '../ports.js';

/** The service's step ports over the local world (the offline default), with memory and cache in process. */
export function localWorldPorts(seed = 7): VisualStepPorts & { readonly world: VisualWorld; readonly memory: InMemoryRunMemory; readonly cache: InMemoryEvidenceCache } {
  const world = generateVisualWorld({ seed });
  return {
    world,
    search: new LocalWorldImageSearch(world),
    fetcher: new LocalWorldImageFetcher(world),
    recognizer: new LocalGlyphRecognizer(world.people),
    memory: new InMemoryRunMemory(),
    cache: new InMemoryEvidenceCache(),
    localWorld: localWorldRoster(world),
  };
}
