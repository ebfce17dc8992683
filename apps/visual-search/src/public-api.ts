/*
 * The visual-search service's public face for code outside the service (benches, the takedown tool): its
 * three step handlers, the local world's ports (run memory and evidence cache in process), and the
 * service's handlers as composed from its settings. Nothing else of `src/` is imported from outside; lint
 * holds benches to this file.
 */
export { DiscoverCandidatesHandler } from './handlers/discover-candidates/discover-candidates.handler.js';
export { SelectNextExpansionHandler } from './handlers/select-next-expansion/select-next-expansion.handler.js';
export { VerifyEdgeHandler } from './handlers/verify-edge/verify-edge.handler.js';
export { localWorldPorts } from './local-world-ports.js';
export { createVisualSearchHandlers } from './composition.js';
export { visualSearchSettingsFromEnv } from './config.js';
