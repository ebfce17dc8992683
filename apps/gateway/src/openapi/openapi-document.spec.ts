import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument, renderOpenApiDocument } from './openapi-document.js';

const committedPath = join(import.meta.dirname, '../../openapi.json');

describe("the gateway's OpenAPI document", () => {
  it('matches the committed apps/gateway/openapi.json (run `npm run api:generate` after changing a route)', async () => {
    const rendered = renderOpenApiDocument(await buildOpenApiDocument());
    expect(readFileSync(committedPath, 'utf8')).toBe(rendered);
  });

  it('is built from the controllers without connecting anywhere: it names the runs, problems and solution routes', async () => {
    const document = await buildOpenApiDocument();
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/problems', '/runs', '/runs/{id}', '/runs/{id}/events', '/runs/{id}/solution']));
  });

  it('documents examples for every JSON request body (each checked against its route\'s schema when the module loads; the OpenAPI fuzz starts from them)', async () => {
    const document = await buildOpenApiDocument();
    const withoutExamples = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations as Record<string, { requestBody?: { content?: Record<string, { examples?: Record<string, unknown> }> } }>)
        .filter(([, operation]) => {
          const json = operation.requestBody?.content?.['application/json'];
          return json !== undefined && Object.keys(json.examples ?? {}).length === 0;
        })
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(withoutExamples).toEqual([]);
  });
});
