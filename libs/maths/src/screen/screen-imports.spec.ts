import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every module `entry` imports, directly or through its relative imports, with what each imports from packages. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (graph.has(file)) return;
    const packages: string[] = [];
    graph.set(file, packages);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s(?!type\b)[^;]*?from '([^']+)'/gms)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.push(specifier);
    }
  };
  visit(entry);
  return graph;
}

describe('@openpaw/maths/screen stays light', () => {
  // Services that hold no maths engine (retrieval, assets, artifacts, research, visual-search) load the
  // screen through the local model; mathjs and nerdamer cost them ~110 MB each (memory bench: a budget
  // module that imported mathjs took five services from ~145 to ~180 MB).
  it('imports neither the engine nor its libraries, however deep', () => {
    const graph = importGraph(join(import.meta.dirname, 'index.ts'));
    const heavy = [...graph].flatMap(([file, packages]) => packages.filter((p) => /^(mathjs|nerdamer)/.test(p)).map((p) => `${file} imports ${p}`));
    expect(graph.size).toBeGreaterThan(1);
    expect(heavy).toEqual([]);
  });
});
