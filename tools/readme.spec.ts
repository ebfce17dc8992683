import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The root README cannot drift from the code (issue 26): every workflow the coordinator defines is in
 * its "What runs" table, every route it names is in the gateway's OpenAPI with that method, every
 * bench command it shows has its source, every app is in its layout, and every script it tells a new
 * user to run exists.
 */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = (heading: string): string => {
  const start = readme.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 3);
  return readme.slice(start, end < 0 ? undefined : end);
};

describe('README.md', () => {
  it('names every workflow the coordinator defines in "What runs"', () => {
    const workflows = join(root, 'apps/coordinator/src/workflows');
    const defined = readdirSync(workflows, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && readdirSync(join(workflows, entry.name)).some((file) => file.endsWith('.definition.ts')))
      .map((entry) => entry.name);
    expect(defined.length).toBeGreaterThan(5);
    const table = section('What runs');
    expect(defined.filter((folder) => !table.includes(`workflows/${folder}`))).toEqual([]);
  });

  it('names only routes the gateway serves, with their methods', () => {
    const openapi = JSON.parse(readFileSync(join(root, 'apps/gateway/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const routes = [...readme.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g)].map(([, method, path]) => ({ method: method!.toLowerCase(), path: path!.replace(/:([A-Za-z]+)/g, '{$1}') }));
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter(({ method, path }) => openapi.paths[path]?.[method] === undefined)).toEqual([]);
  });

  it('shows only bench commands whose sources exist', () => {
    const benches = [...readme.matchAll(/node dist\/bench\/([\w/-]+)\.js/g)].map(([, entry]) => entry!);
    expect(benches.length).toBeGreaterThan(3);
    expect(benches.filter((entry) => !existsSync(join(root, 'bench', `${entry}.ts`)))).toEqual([]);
  });

  it('lays out every app and names only scripts that exist', () => {
    const layout = section('Layout');
    const apps = readdirSync(join(root, 'apps'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(apps.filter((app) => !layout.includes(`apps/${app}`))).toEqual([]);
    const scripts = [...readme.matchAll(/\.\/scripts\/([\w.-]+)/g)].map(([, name]) => name!);
    expect(scripts.length).toBeGreaterThan(1);
    expect(scripts.filter((name) => !existsSync(join(root, 'scripts', name)))).toEqual([]);
  });
});

/** The README of every app and lib, and the contracts' (the documents a developer reads about each project). */
function projectReadmes(): string[] {
  return [
    ...['apps', 'libs'].flatMap((dir) =>
      readdirSync(join(root, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(root, dir, entry.name, 'README.md')))
        .map((entry) => join(dir, entry.name, 'README.md')),
    ),
    'contracts/README.md',
  ];
}

/** The identifier of every call the inline code of a markdown text shows (`onCancel(run, reason)`, `SagaDriver.givenKeyHeldBy(x)` → `givenKeyHeldBy`). */
function calledNamesIn(markdown: string): string[] {
  return [...markdown.matchAll(/`([^`\n]+)`/g)].flatMap(([, code]) => [...code!.matchAll(/(?<![\w$./-])(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)\(/g)].map(([, name]) => name!));
}

/** Every word of the repository's TypeScript and JavaScript sources (apps, libs, contracts, tools, deploy, bench), specs excepted (a spec may name what does not exist). */
function sourceWords(): Set<string> {
  const words = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.isDirectory() && !['node_modules', 'dist'].includes(entry.name)) walk(join(dir, entry.name));
      else if (entry.isFile() && /\.(?:[cm]?[jt]s|tsx)$/.test(entry.name) && !entry.name.includes('.spec.')) for (const [word] of readFileSync(join(root, dir, entry.name), 'utf8').matchAll(/[A-Za-z_$][\w$]*/g)) words.add(word);
    }
  };
  for (const dir of ['apps', 'libs', 'contracts', 'tools', 'deploy', 'bench']) walk(dir);
  return words;
}

describe('the apps’, libs’ and contracts’ READMEs', () => {
  it('name only functions and methods the code has (issue 26: libs/saga/README.md named a cancelEffects() that never existed)', () => {
    const words = sourceWords();
    const named = projectReadmes().flatMap((doc) => calledNamesIn(readFileSync(join(root, doc), 'utf8')).map((name) => ({ doc, name })));
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter(({ name }) => !words.has(name)).map(({ doc, name }) => `${doc}: ${name}()`)).toEqual([]);
  });

  it('are read for the calls their inline code shows', () => {
    expect(calledNamesIn('the cancel hook is `onCancel(run, reason, context)`; in specs `SagaDriver.givenKeyHeldBy(holder)`; `cancelEffects()`; `x.js` and `(a)` are not calls')).toEqual([
      'onCancel',
      'givenKeyHeldBy',
      'cancelEffects',
    ]);
  });
});
