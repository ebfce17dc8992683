import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { catalog } from './catalog.js';

const asyncapiPath = join(import.meta.dirname, '../../../contracts/asyncapi.yaml');

/**
 * The committed AsyncAPI document, as other teams' tooling reads it: parsed and validated by the
 * AsyncAPI parser (the spec's JSON Schema plus its rules), not only as YAML. A document it refuses is
 * one their code generators and docs cannot use.
 */
describe('contracts/asyncapi.yaml through the AsyncAPI parser', () => {
  const parsed = new Parser().parse(readFileSync(asyncapiPath, 'utf8'), { source: asyncapiPath });

  it('is a valid AsyncAPI 3 document (no error diagnostics)', async () => {
    const { document, diagnostics } = await parsed;
    const errors = diagnostics.filter((d) => Number(d.severity) === Number(DiagnosticSeverity.Error)).map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(errors).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('has a channel and a message for every subject of the catalog, with its address', async () => {
    const { document } = await parsed;
    const addresses = new Set(document?.channels().all().map((channel) => channel.address()));
    const missing = catalog.filter((definition) => !addresses.has(definition.subject)).map((definition) => definition.subject);
    expect(missing).toEqual([]);
    for (const definition of catalog.slice(0, 5)) {
      const channel = document?.channels().all().find((c) => c.address() === definition.subject);
      expect(channel?.messages().all().length).toBeGreaterThan(0);
    }
  });
});
