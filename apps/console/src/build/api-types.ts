import { readFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

/** Where the gateway's committed OpenAPI document and the console's generated types live, from the repository root. */
export const GATEWAY_OPENAPI_FILE = 'apps/gateway/openapi.json';
export const API_TYPES_FILE = 'apps/console/src/app/api/schema.ts';

/** The TypeScript types (`paths`, `components`, `operations`) of an OpenAPI document, as openapi-fetch wants them. */
export async function renderApiTypes(document: OpenAPI3): Promise<string> {
  const ast = await openapiTS(document, { alphabetize: true });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

export function readOpenApi(path: string): OpenAPI3 {
  return JSON.parse(readFileSync(path, 'utf8')) as OpenAPI3;
}
