import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isKept, renderContractFiles } from './generate.js';

/** Writes `contracts/` from the catalog, removing files the catalog no longer produces. */
function main(): void {
  const root = join(process.cwd(), 'contracts');
  const files = renderContractFiles();
  for (const existing of listFiles(root)) {
    const path = relative(root, existing);
    if (!files.has(path) && !isKept(path)) rmSync(existing);
  }
  for (const [path, content] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  console.log(`contracts: wrote ${files.size} files to ${root}`);
}

function listFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

main();
