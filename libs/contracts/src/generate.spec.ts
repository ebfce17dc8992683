import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { renderContractFiles } from './generate.js';

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
    const stale = committedFiles(contractsDir).filter((path) => path !== 'README.md' && !rendered.has(path));
    expect(stale).toEqual([]);
  });
});
