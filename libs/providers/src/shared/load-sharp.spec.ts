import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSharp } from './load-sharp.js';

const PROVIDERS_SRC = fileURLToPath(new URL('..', import.meta.url));

/** The library's own modules (not its specs or test helpers), as paths below src/. */
function sourceModules(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(prefix, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceModules(join(dir, entry.name), path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('loadSharp', () => {
  it('gives sharp on first use, the same load to every caller', async () => {
    const [first, second] = await Promise.all([loadSharp(), loadSharp()]);
    expect(first).toBe(second);
    const png = await first({ create: { width: 2, height: 1, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect((await first(png).metadata()).width).toBe(2);
  });

  it('is the only way the library loads sharp: no module imports it at load (every service imports the library, few see an image)', () => {
    const eager = sourceModules(PROVIDERS_SRC).filter((path) => /^import\s+(?!type\b)[^;]*from 'sharp';/m.test(readFileSync(join(PROVIDERS_SRC, path), 'utf8')));
    expect(eager).toEqual([]);
  });
});
