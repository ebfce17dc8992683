// Bundles the web console (apps/console/src/app) with esbuild into dist/apps/console/public: content-hashed
// JS and CSS (served `immutable` by the gateway) and an index.html naming them (served `no-cache`).
import { rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

/** Builds the console under `root`; returns the folder the gateway serves. */
export async function buildConsole(root) {
  const outdir = join(root, 'dist/apps/console/public');
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [join(root, 'apps/console/src/app/main.tsx'), join(root, 'apps/console/src/app/styles.css')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    entryNames: '[name]-[hash]',
    outdir,
    metafile: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(root, 'apps/console/tsconfig.json'),
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error(`console build: no bundle among ${outputs.join(', ')}`);
  writeFileSync(
    join(outdir, 'index.html'),
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>OpenPaw console</title>
    <link rel="stylesheet" href="./${style}" />
    <script type="module" src="./${script}"></script>
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
`,
  );
  return outdir;
}
