import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_TYPES_FILE, GATEWAY_OPENAPI_FILE, readOpenApi, renderApiTypes } from './api-types.js';

const root = join(import.meta.dirname, '../../../..');

describe("the console's generated API types", () => {
  it("match the gateway's committed OpenAPI document (run `npm run api:generate` after changing a route)", async () => {
    const rendered = await renderApiTypes(readOpenApi(join(root, GATEWAY_OPENAPI_FILE)));
    expect(readFileSync(join(root, API_TYPES_FILE), 'utf8')).toBe(rendered);
  });
});
