import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageNodeOptions, serviceNodeFlags } from './image-defaults.js';

/** Checkouts made of one file (none when `content` is undefined), removed after the file's specs. */
const roots: string[] = [];
function checkoutWith(file: string, content?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'openpaw-checkout-'));
  roots.push(root);
  if (content !== undefined) writeFileSync(join(root, file), content);
  return root;
}
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

describe('imageNodeOptions', () => {
  const rootWith = (dockerfile?: string): string => checkoutWith('Dockerfile', dockerfile);

  it("reads the last stage's ENV NODE_OPTIONS, not a build stage's", () => {
    const root = rootWith('FROM a AS build\nENV NODE_OPTIONS=--max-old-space-size=4096\nFROM b\nENV NODE_ENV=production NODE_OPTIONS=--max-semi-space-size=2\n');
    expect(imageNodeOptions(root)).toBe('--max-semi-space-size=2');
  });

  it('is empty without a Dockerfile or without the setting', () => {
    expect(imageNodeOptions(rootWith())).toBe('');
    expect(imageNodeOptions(rootWith('FROM b\nENV NODE_ENV=production\n'))).toBe('');
  });

  it("is this checkout's image setting", () => {
    expect(imageNodeOptions(join(import.meta.dirname, '../../..'))).toMatch(/--max-semi-space-size=\d+/);
  });
});

describe('serviceNodeFlags', () => {
  const rootWith = (compose?: string): string => checkoutWith('docker-compose.yml', compose);

  it('reads the flags between node and the entry point of each service, by app (a lane of it shares them)', () => {
    const root = rootWith(
      [
        'services:',
        '  nats: { image: nats, command: ["-js"] }',
        '  gateway: { command: ["node", "--max-semi-space-size=4", "dist/apps/gateway/src/main.js"] }',
        '  solve: { command: ["node", "dist/apps/solve/src/main.js"] }',
        '  research: { command: ["node", "--max-semi-space-size=4", "dist/apps/research/src/main.js"] }',
        '  research-research: { command: ["node", "--max-semi-space-size=4", "dist/apps/research/src/main.js"] }',
        '  provision: { command: ["sh", "-c", "node dist/tools/provision.js"] }',
      ].join('\n'),
    );
    expect(Object.fromEntries(serviceNodeFlags(root))).toEqual({ gateway: ['--max-semi-space-size=4'], solve: [], research: ['--max-semi-space-size=4'] });
  });

  it('refuses two services of one app started with different flags, and is empty without the file', () => {
    const root = rootWith('services:\n  a: { command: ["node", "--x", "dist/apps/a/src/main.js"] }\n  b: { command: ["node", "dist/apps/a/src/main.js"] }\n');
    expect(() => serviceNodeFlags(root)).toThrow(/b starts a with no flags, another of its services with --x/);
    expect(serviceNodeFlags(rootWith()).size).toBe(0);
  });

  it("gives this checkout's services the young generation deploy/src/topology.ts sets", () => {
    const flags = serviceNodeFlags(join(import.meta.dirname, '../../..'));
    expect(flags.get('gateway')).toEqual(['--max-semi-space-size=4']);
    expect(flags.get('retrieval')).toEqual([]);
  });
});
