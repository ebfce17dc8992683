import { join } from 'node:path';
import './ts-resolve.mjs';

/** The boot project's setup: V8's compile cache of the build, warmed once, for every service its files spawn (NODE_COMPILE_CACHE). */
export default async function bootGlobalSetup() {
  const { warmCompileCache } = await import('../src/compile-cache.ts');
  process.env.NODE_COMPILE_CACHE = warmCompileCache(join(import.meta.dirname, '..', '..', '..'));
}
