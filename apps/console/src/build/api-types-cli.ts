/**
 * Regenerates the console's API types from the gateway's committed OpenAPI document
 * (run from the repository root: `npm run api:generate`).
 */
import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, GATEWAY_OPENAPI_FILE, readOpenApi, renderApiTypes } from './api-types.js';

writeFileSync(API_TYPES_FILE, await renderApiTypes(readOpenApi(GATEWAY_OPENAPI_FILE)));
console.log(`api types: wrote ${API_TYPES_FILE}`);
