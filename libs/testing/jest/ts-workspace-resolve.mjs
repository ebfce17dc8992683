// For a child `node --experimental-transform-types --import <this>` that runs workspace sources
// without a build: `./x.js` → `./x.ts` (as ts-resolve.mjs), and `@openpaw/<lib>[/<entry>]` → the
// lib's source index, the way jest's moduleNameMapper and tsconfig paths map them.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import './ts-resolve.mjs';

const libs = new URL('../../', import.meta.url);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const match = /^@openpaw\/([^/]+)(?:\/(.+))?$/.exec(specifier);
    if (match !== null) {
      const [, lib, entry] = match;
      const index = new URL(`${lib}/src/${entry === undefined ? '' : `${entry}/`}index.ts`, libs);
      if (existsSync(fileURLToPath(index))) return nextResolve(pathToFileURL(fileURLToPath(index)).href, context);
    }
    return nextResolve(specifier, context);
  },
});
