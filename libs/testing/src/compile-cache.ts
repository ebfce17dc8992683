import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALL_SERVICES } from './platform-processes.js';

/**
 * V8's compile cache of the build (Node's `NODE_COMPILE_CACHE`) for the services a test spawns: inside
 * the checkout, so a process in a boot test's read-only sandbox reads it where it reads `dist/` (Node
 * skips writing to a read-only cache and compiles what is missing). It only saves start-up CPU: Node
 * checks each entry against the source's hash and V8's version, so a rebuilt file is compiled again.
 */
export function compileCacheDirOf(root: string): string {
  return join(root, '.run', 'node-compile-cache');
}

/**
 * Fills the cache with every service's modules in one process (the shared dependencies compiled once),
 * and returns its directory. Writable by everyone: a boot test runs compose's services as uid 1000.
 */
export function warmCompileCache(root: string): string {
  const dir = compileCacheDirOf(root);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  const modules = ALL_SERVICES.map((service) => join(root, 'dist/apps', service, 'src/app.module.js')).filter((file) => existsSync(file));
  const imports = modules.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`).join('\n');
  execFileSync(process.execPath, ['--input-type=module', '-e', `${imports}\nprocess.exit(0);`], { cwd: root, env: { ...process.env, NODE_COMPILE_CACHE: dir }, stdio: 'pipe' });
  return dir;
}
