// Packs the CLI as its own npm package (`@openpaw/cli`, bin `openpaw`): bundles apps/cli/src/main.ts
// with esbuild into apps/cli/dist/openpaw.js (its dependencies stay imports, installed from
// apps/cli/package.json), then `npm pack`s apps/cli into the given folder (default dist/packages).
// `node tools/pack-cli.mjs [out-dir]` prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'apps/cli');

/** Bundles and packs the CLI; answers the tarball's absolute path. */
export async function packCli(outDir = join(root, 'dist/packages')) {
  const manifest = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8'));
  rmSync(join(cli, 'dist'), { recursive: true, force: true });
  await build({
    entryPoints: [join(cli, 'src/main.ts')],
    outfile: join(cli, 'dist/openpaw.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Runtime dependencies are the package's own; the rest is bundled in (`@openpaw/contracts` helpers
    // the CLI calls, with their zod): tools/declared-dependencies.spec.ts checks the CLI's own imports.
    external: Object.keys(manifest.dependencies ?? {}),
    tsconfig: join(root, 'tsconfig.base.json'),
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  const [packed] = JSON.parse(execFileSync('npm', ['pack', cli, '--pack-destination', resolve(outDir), '--json'], { encoding: 'utf8', cwd: root }));
  return join(resolve(outDir), packed.filename);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await packCli(process.argv[2]));
