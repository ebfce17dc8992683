/**
 * Writes the gateway's OpenAPI document to a file (default `apps/gateway/openapi.json`), for the
 * console's generated client: `node dist/apps/gateway/src/openapi/openapi-cli.js [path]`.
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, renderOpenApiDocument } from './openapi-document.js';

const target = process.argv[2] ?? 'apps/gateway/openapi.json';
writeFileSync(target, renderOpenApiDocument(await buildOpenApiDocument()));
console.log(`openapi: wrote ${target}`);
process.exit(0);
