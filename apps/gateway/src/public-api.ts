/*
 * The gateway's public face for code outside it (benches): a typed client of its artifacts routes.
 * Nothing else of `src/` is imported from outside; lint holds benches to this file.
 */
export { ArtifactsApiClient } from './artifacts/testing/artifacts-api-client.js';
