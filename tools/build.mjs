// Compiles apps and libs to dist/ with tsc, then links each lib as dist/node_modules/@openpaw/<lib>
// so compiled code resolves `@openpaw/*` imports at run time the way tsconfig paths do at compile time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
// tsc emits even on type errors; link what it wrote either way, then fail the build if it failed.
let failed = false;
try {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
} catch {
  failed = true;
}
const scope = join(root, 'dist/node_modules/@openpaw');
mkdirSync(scope, { recursive: true });
for (const lib of readdirSync(join(root, 'libs'))) {
  const target = join(root, 'dist/libs', lib, 'src');
  if (!existsSync(target)) continue;
  // `exports`: the lib's index, and its secondary entry points (`@openpaw/<lib>/<folder>` → the folder's index).
  writeFileSync(
    join(target, 'package.json'),
    JSON.stringify({ name: `@openpaw/${lib}`, type: 'module', main: 'index.js', exports: { '.': './index.js', './*': './*/index.js' } }),
  );
  symlinkSync(join('..', '..', 'libs', lib, 'src'), join(scope, lib));
}
// The web console's bundle (served by the gateway at /console; ADR 0015).
try {
  await buildConsole(root);
} catch (error) {
  console.error(`build: the console did not build: ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
}
if (failed) {
  console.error('build: tsc reported errors (dist/ written anyway)');
  process.exit(1);
}
console.log('build: dist/ ready');
