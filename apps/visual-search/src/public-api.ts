/*
 * The visual-search service's public face for code outside the service (benches, the takedown tool): the
 * chain search's domain, its two provider-calling handlers, in-memory run memory and evidence cache, the
 * local world's ports, and a person's takedown. Nothing else of `src/` is imported from outside; lint
 * holds benches to this file.
 */
export { InMemoryEvidenceCache } from './domain/evidence-cache.js';
export { type FrontierState, nextExpansion, recordExpansion, startFrontiers, type Strategy } from './domain/frontier-search.js';
export { isPerson, type PersonRef } from './domain/person.js';
export { DiscoverCandidatesHandler } from './handlers/discover-candidates/discover-candidates.handler.js';
export { VerifyEdgeHandler } from './handlers/verify-edge/verify-edge.handler.js';
export { InMemoryRunMemory } from './memory/in-memory-run-memory.js';
export { localWorldPorts } from './testing/local-world-ports.js';
export { createVisualSearchHandlers } from './composition.js';
export { visualSearchSettingsFromEnv } from './config.js';
