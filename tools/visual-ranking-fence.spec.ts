import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';

/**
 * Spec 03 (issue 28): without a model, candidates are ranked only on what search and recognition
 * returned. The import fence in eslint.config.js keeps the ranking from reading the local world (whose
 * graph would turn the bench's figures into a lookup). This checks the fence covers every file of the
 * ranking as it is laid out now, so moving or adding a file cannot slip out of it unnoticed.
 */

const root = join(import.meta.dirname, '..');
const FENCED_FOLDERS = ['apps/visual-search/src/domain', 'apps/coordinator/src/workflows/visual-degrees', 'libs/contracts/src/visual-degrees'];

function sourceFilesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    // Specs' fixtures (a `testing/` folder) are not the ranking: the fence leaves them out, as it does specs.
    .filter((file) => !file.split('/').includes('testing'));
}

interface RestrictedImports {
  readonly paths?: readonly { readonly name: string }[];
  readonly patterns?: readonly { readonly regex?: string }[];
}

async function restrictedImportsOf(eslint: ESLint, file: string): Promise<RestrictedImports | undefined> {
  const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
  const rule = config.rules?.['@typescript-eslint/no-restricted-imports'];
  if (!Array.isArray(rule) || (rule[0] !== 2 && rule[0] !== 'error')) return undefined;
  return rule[1] as RestrictedImports;
}

describe('the visual-degrees ranking may not read the local world (eslint fence)', () => {
  const eslint = new ESLint({ cwd: root });

  it('covers every source file of the ranking: the providers (values) and any visual-world module are refused', async () => {
    const files = FENCED_FOLDERS.flatMap(sourceFilesUnder);
    expect(files).toEqual(expect.arrayContaining(['apps/coordinator/src/workflows/visual-degrees/visual-degrees.chains.ts', 'apps/visual-search/src/domain/selection.ts']));
    const unfenced: string[] = [];
    for (const file of files) {
      const fence = await restrictedImportsOf(eslint, file);
      const refusesProviders = fence?.paths?.some((p) => p.name === '@openpaw/providers') ?? false;
      const refusesWorld = fence?.patterns?.some((p) => p.regex !== undefined && new RegExp(p.regex).test('@openpaw/providers/src/visual-world/visual-world.js')) ?? false;
      if (!refusesProviders || !refusesWorld) unfenced.push(file);
    }
    expect(unfenced).toEqual([]);
  }, 60_000);

  it('leaves the benches free to read the world (they pick the pairs from it)', async () => {
    const fence = await restrictedImportsOf(eslint, 'bench/visual/visual-degrees-runs.ts');
    expect(fence?.paths?.some((p) => p.name === '@openpaw/providers') ?? false).toBe(false);
  }, 60_000);
});
