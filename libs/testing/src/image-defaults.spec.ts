import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageNodeOptions } from './image-defaults.js';

describe('imageNodeOptions', () => {
  const roots: string[] = [];
  const rootWith = (dockerfile?: string): string => {
    const root = mkdtempSync(join(tmpdir(), 'openpaw-image-'));
    roots.push(root);
    if (dockerfile !== undefined) writeFileSync(join(root, 'Dockerfile'), dockerfile);
    return root;
  };
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

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
