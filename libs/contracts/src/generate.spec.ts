import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { SCHEMA_BASE_URI } from './subjects.js';
import { isKept, renderContractFiles } from './generate.js';

const contractsDir = join(import.meta.dirname, '../../../contracts');

function committedFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? committedFiles(path) : [relative(contractsDir, path)];
  });
}

describe('generated contracts', () => {
  const rendered = renderContractFiles();

  it('match the committed files under contracts/ (run `npm run contracts:generate` after changing a schema)', () => {
    for (const [path, content] of rendered) {
      expect({ path, content: readFileSync(join(contractsDir, path), 'utf8') }).toEqual({ path, content });
    }
  });

  it('leave no stale committed file behind', () => {
    const stale = committedFiles(contractsDir).filter((path) => !isKept(path) && !rendered.has(path));
    expect(stale).toEqual([]);
  });
});

describe('published schemas', () => {
  const rendered = renderContractFiles();
  const schemas = [...rendered].filter(([path]) => path.endsWith('.schema.json'));

  it('let consumers ignore unknown fields (no additionalProperties: false anywhere)', () => {
    expect(schemas.length).toBeGreaterThan(10);
    for (const [path, content] of schemas) expect({ path, closed: content.includes('"additionalProperties": false') }).toEqual({ path, closed: false });
    expect(rendered.get('asyncapi.yaml')).not.toContain('additionalProperties: false');
  });

  it('have an $id that is the base URI plus the file\'s own path under contracts/', () => {
    for (const [path, content] of schemas) {
      const { $id } = JSON.parse(content) as { $id: string };
      expect($id).toBe(`${SCHEMA_BASE_URI}${path}`);
    }
  });

  it('the AsyncAPI document has production servers with security, the dead-letter channel and NATS specifics', () => {
    const doc = parse(rendered.get('asyncapi.yaml') ?? '') as {
      servers: Record<string, { security?: unknown[] }>;
      channels: Record<string, Record<string, unknown>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.servers['production']?.security).toHaveLength(2);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['natsCredentials', 'mutualTls']);
    expect(doc.channels['deadLetters']).toMatchObject({ address: 'openpaw.dlq.{original}', 'x-nats-stream': 'OPENPAW_DLQ' });
    expect(doc.channels['solve_GenerateSolution_v1']).toMatchObject({
      'x-nats-stream': 'OPENPAW_COMMANDS',
      'x-nats-durable': 'svc-solve',
      'x-nats-dead-letter-subject': 'openpaw.dlq.cmd.solve.GenerateSolution.v1',
      'x-openpaw-senders': ['coordinator'],
    });
    expect(doc.channels['artifacts_CaptureSnapshot_v1']?.['x-openpaw-senders']).toEqual(['gateway', 'coordinator']);
  });
});
