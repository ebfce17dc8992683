/*
 * The coordinator's public face for code outside the service (benches): the saga definitions a bench
 * drives in process on the pure engine (`scenario` of @openpaw/saga), with no database or NATS. Nothing
 * else of `src/` is imported from outside; lint holds benches to this file.
 */
export { visualDegreesDefinition } from './workflows/visual-degrees/visual-degrees.definition.js';
export type { VisualDegreesData } from './workflows/visual-degrees/visual-degrees.data.js';
