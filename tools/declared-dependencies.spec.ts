import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * Every package the sources import is declared where the repository keeps it (issue 26, dependency
 * hygiene): found by parsing every source file of apps/, libs/, contracts/, tools/, bench/ and deploy/
 * (and the root's config files) with the TypeScript parser, not from a list.
 *
 * - Any import of a package (static, `export ... from`, `import()`, `require()`, `import('x')` types)
 *   names a package in the root package.json; a type-only one may name its `@types/` package instead.
 *   `@openpaw/...` names a path of tsconfig.base.json.
 * - What the image runs (it prunes devDependencies): from every `dist/....js` the Dockerfile and
 *   the synthesized manifests (deploy/k8s) start, the import closure of its source imports, as
 *   values, only packages of `dependencies`.
 * - Every declared package is used (imported, its command run, named by a root config, a peer of one
 *   used, or the types of one), and every production dependency is loaded by what the image runs
 *   (or by the CLI's package); what is not is listed below by name, with why, until package.json changes.
 * - The CLI's package (apps/cli/package.json, bundled by tools/pack-cli.mjs with only its
 *   dependencies left as imports): the CLI's own sources import, as values, only those.
 */
const root = join(import.meta.dirname, '..');
const SOURCE_DIRS = ['apps', 'libs', 'contracts', 'tools', 'bench', 'deploy'];
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;
const NOT_SOURCE_DIRS = new Set(['node_modules', 'dist', '.tools', '.run']);

/**
 * Imports of packages deliberately not declared, each with the decision that says so; an entry no
 * source imports any more fails the test.
 */
const UNDECLARED_BY_DECISION: Readonly<Record<string, { readonly file: string; readonly why: string }>> = {
  algebrite: { file: 'bench/maths/cas-compare.ts', why: 'ADR 0005: compared once against nerdamer, installed with `npm install --no-save` for that bench only' },
};

interface Manifest {
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(root, path), 'utf8')) as T;
const rootManifest = readJson<Manifest>('package.json');
const cliManifest = readJson<Manifest>('apps/cli/package.json');
const aliases = Object.keys(readJson<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.base.json').compilerOptions.paths);
const aliasTargets = readJson<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.base.json').compilerOptions.paths;

/** Every source file, relative to the root. */
function sourceFiles(): string[] {
  const files = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => entry.name);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !NOT_SOURCE_DIRS.has(entry.name)) walk(path);
      else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return files;
}

interface Import {
  readonly specifier: string;
  /** Erased at compile time: `import type`, `export type`, every named binding `type`, or an `import('x')` type. */
  readonly typeOnly: boolean;
}

/** The module specifiers a file names, with whether each is type-only. */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : undefined);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const namedAllTypes =
        clause !== undefined && clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: clause?.isTypeOnly === true || namedAllTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      // `createRequire(import.meta.url)` makes a require: `createRequire(...)('x')` loads x, `.resolve('x')` finds it.
      const isRequire = (expression: ts.Expression): boolean =>
        (ts.isIdentifier(expression) && expression.text === 'require') || (ts.isCallExpression(expression) && ts.isIdentifier(expression.expression) && expression.expression.text === 'createRequire');
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        isRequire(callee) ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' && (isRequire(callee.expression) || callee.expression.getText(source) === 'import.meta'));
      if (loads) found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The package an import names (`@scope/name`, `name`), or undefined for a file, a builtin or an alias. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || isBuiltin(specifier)) return undefined;
  if (specifier.startsWith('@openpaw/')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const typesPackageOf = (name: string): string => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;

const files = sourceFiles();
const importsByFile = new Map(files.map((file) => [file, importsOf(file)]));

/** The source file an import resolves to inside the repository (relative `.js` → `.ts`, `@openpaw/...` by tsconfig paths). */
function resolveLocal(from: string, specifier: string): string | undefined {
  let target: string | undefined;
  if (specifier.startsWith('.')) target = join(dirname(from), specifier);
  else if (specifier.startsWith('@openpaw/')) target = aliasTargets[specifier]?.[0]?.replace(/^\.\//, '');
  if (target === undefined) return undefined;
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target.replace(/\.mjs$/, '.mts'), `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((candidate) => importsByFile.has(candidate));
}

/** The files loaded at run time from `entries`: value imports only, followed through the repository. */
function runtimeClosure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { specifier, typeOnly } of importsByFile.get(file) ?? []) {
      if (typeOnly) continue;
      const local = resolveLocal(file, specifier);
      if (local !== undefined) queue.push(local);
    }
  }
  return seen;
}

/** The sources of every `dist/....js` the Dockerfile and the synthesized manifests (deploy/k8s) start, sorted. */
function startedByImage(): string[] {
  const started = ['Dockerfile', ...readdirSync(join(root, 'deploy/k8s')).map((file) => join('deploy/k8s', file))].flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/\bdist\/([\w./-]+)\.js\b/g)].map(([, path]) => `${path!}.ts`),
  );
  return [...new Set(started)].sort();
}

/**
 * The operator tools the docs tell to run (`node dist/tools/x.js`, in README.md, an app's or lib's
 * README or docs/, ADRs excepted): the image ships dist/tools, and an operator runs them in a pod of
 * it (the runbook's `kubectl run ... --image=<openpaw image>`). Benches run from a checkout, not here.
 */
function operatorToolsInDocs(): string[] {
  const docs = markdownFiles('.');
  const tools = docs.flatMap((doc) => [...readFileSync(join(root, doc), 'utf8').matchAll(/\bnode dist\/(tools\/[\w./-]+)\.js\b/g)].map(([, path]) => `${path!}.ts`));
  return [...new Set(tools)].sort();
}

/** The markdown files under `dir` (node_modules, dist and the ADRs, records rather than instructions, excepted). */
function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory()) return NOT_SOURCE_DIRS.has(entry.name) || entry.name.startsWith('.') || path === join('docs', 'adr') ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * The folders the image's build deletes after building (`rm -rf dist/...` in the Dockerfile), as the
 * source folders they are built from: `dist/apps/<any>/src/testing` (a glob in the Dockerfile) → `apps/<any>/src/testing/`.
 */
function foldersTheImageDeletes(): RegExp[] {
  const removed = [...readFileSync(join(root, 'Dockerfile'), 'utf8').matchAll(/\brm -rf((?:\s+dist\/[^\s&;]+)+)/g)].flatMap(([, paths]) => paths!.trim().split(/\s+/));
  const escape = (text: string): string => text.replace(/[.+?^$()|[\]{}\\]/g, (character) => `\\${character}`);
  return removed.map((path) => new RegExp(`^${escape(path.replace(/^dist\//, '')).replace(/\*/g, '[^/]+')}/`));
}

/** `file: import "x" — problem` for each third-party value import of `closure` that `allowed` refuses. */
function undeclaredValueImports(closure: Iterable<string>, allowed: (name: string) => boolean, problem: string): string[] {
  return [...closure].flatMap((file) =>
    (importsByFile.get(file) ?? []).flatMap(({ specifier, typeOnly }) => {
      const name = packageOf(specifier);
      return name === undefined || typeOnly || allowed(name) ? [] : [`${file}: import "${specifier}" — ${problem}`];
    }),
  );
}

/** An installed package's manifest: the commands it puts on PATH and the packages it needs beside it. */
interface InstalledManifest {
  readonly bin?: string | Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
}
const installedManifest = (name: string): InstalledManifest => readJson<InstalledManifest>(join('node_modules', name, 'package.json'));
const commandsOf = (name: string): string[] => {
  const { bin } = installedManifest(name);
  return bin === undefined ? [] : typeof bin === 'string' ? [name.split('/').pop()!] : Object.keys(bin);
};

/** What runs packages' commands: package.json's scripts, the shell scripts, the Dockerfile and CI's entry point. */
const commandText = [
  ...Object.values(readJson<{ scripts: Record<string, string> }>('package.json').scripts),
  ...readdirSync(join(root, 'scripts')).filter((file) => file.endsWith('.sh')).map((file) => readFileSync(join(root, 'scripts', file), 'utf8')),
  readFileSync(join(root, 'Dockerfile'), 'utf8'),
  readFileSync(join(root, '.ci/run'), 'utf8'),
].join('\n');

/** The string literals of the root's config files (jest.config.js names its transform '@swc/jest'). */
function rootConfigStrings(): Set<string> {
  const strings = new Set<string>();
  for (const file of files.filter((f) => !f.includes('/'))) {
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteralLike(node)) strings.add(node.text);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true));
  }
  return strings;
}

/**
 * The declared packages of `declared` that `loaded` (packages imported as the caller counts them)
 * needs: those loaded, the commands run, the config names, the peers those need (fixpoint), and
 * each `@types/x` whose x is needed, is a global of tsconfig ("types"), or is installed under one needed.
 */
function neededOf(declared: ReadonlySet<string>, loaded: ReadonlySet<string>, withCommandsAndConfig: boolean): Set<string> {
  const configStrings = withCommandsAndConfig ? rootConfigStrings() : new Set<string>();
  const needed = new Set([...declared].filter((name) =>
    loaded.has(name) ||
    (withCommandsAndConfig && (configStrings.has(name) || commandText.includes(`node_modules/${name}/`) || commandsOf(name).some((command) => new RegExp(`(?:^|[\\s;&|(])${command}\\b`, 'm').test(commandText)))),
  ));
  for (let grew = true; grew; ) {
    grew = false;
    for (const name of [...needed]) {
      const { peerDependencies = {}, peerDependenciesMeta = {} } = installedManifest(name);
      for (const peer of Object.keys(peerDependencies)) {
        if (declared.has(peer) && !needed.has(peer) && peerDependenciesMeta[peer]?.optional !== true) {
          needed.add(peer);
          grew = true;
        }
      }
    }
  }
  const globalTypes = readJson<{ compilerOptions: { types?: string[] } }>('tsconfig.base.json').compilerOptions.types ?? [];
  const installedUnderNeeded = new Set([...needed].flatMap((name) => Object.keys(installedManifest(name).dependencies ?? {})));
  for (const name of declared) {
    if (!name.startsWith('@types/')) continue;
    const typed = [...declared, ...globalTypes, ...installedUnderNeeded].find((candidate) => typesPackageOf(candidate) === name);
    if (typed !== undefined && (needed.has(typed) || globalTypes.includes(typed) || installedUnderNeeded.has(typed))) needed.add(name);
  }
  return needed;
}

const declaredInRoot = new Set([...Object.keys(rootManifest.dependencies ?? {}), ...Object.keys(rootManifest.devDependencies ?? {})]);
const productionDependencies = new Set(Object.keys(rootManifest.dependencies ?? {}));

describe('declared dependencies', () => {
  it('scans every source file of the repository', () => {
    expect(files.length).toBeGreaterThan(500);
    // contracts/ holds the generated AsyncAPI and schema documents, no source (yet): walked all the same.
    for (const dir of SOURCE_DIRS.filter((d) => d !== 'contracts')) expect({ dir, files: files.some((file) => file.startsWith(`${dir}/`)) }).toEqual({ dir, files: true });
  });

  it('every imported package is declared in package.json (a type-only import: it or its @types package)', () => {
    const problems = files.flatMap((file) =>
      (importsByFile.get(file) ?? []).flatMap(({ specifier, typeOnly }) => {
        if (specifier.startsWith('@openpaw/')) return aliases.includes(specifier) ? [] : [`${file}: import "${specifier}" — not a path of tsconfig.base.json`];
        const name = packageOf(specifier);
        if (name === undefined || declaredInRoot.has(name) || (typeOnly && declaredInRoot.has(typesPackageOf(name))) || UNDECLARED_BY_DECISION[name]?.file === file) return [];
        return [`${file}: import "${specifier}" — "${name}" is not declared in package.json`];
      }),
    );
    expect(problems).toEqual([]);
    const stillImported = Object.entries(UNDECLARED_BY_DECISION).filter(([name, { file }]) => importsByFile.get(file)?.some(({ specifier }) => packageOf(specifier) === name) === true);
    expect(stillImported.map(([name]) => name)).toEqual(Object.keys(UNDECLARED_BY_DECISION));
  });

  it('what the image runs imports only production dependencies (the image prunes devDependencies)', () => {
    const entries = startedByImage();
    expect(entries.filter((entry) => !importsByFile.has(entry))).toEqual([]);
    expect(entries).toEqual(expect.arrayContaining(['apps/gateway/src/main.ts', 'apps/coordinator/src/main.ts', 'apps/research/src/main.ts', 'tools/migrate.ts', 'tools/retention.ts']));
    const closure = runtimeClosure(entries);
    expect(closure.size).toBeGreaterThan(entries.length * 10);
    expect(undeclaredValueImports(closure, (name) => productionDependencies.has(name), 'run by the image, but not in package.json "dependencies"')).toEqual([]);
  });

  it('what the image runs never imports a file its build deletes (test-only entrypoints and their helpers: issue 26)', () => {
    const deleted = foldersTheImageDeletes();
    expect(deleted.map(String)).toEqual(expect.arrayContaining([String(/^apps\/[^/]+\/src\/testing\//)]));
    const tools = operatorToolsInDocs();
    expect(tools).toEqual(expect.arrayContaining(['tools/maths-reindex.ts', 'tools/visual-takedown.ts']));
    const entries = [...startedByImage(), ...tools];
    expect(entries.filter((entry) => !importsByFile.has(entry))).toEqual([]);
    // Each entry whose closure reaches a deleted file, with the first such file: that entry would not start in the image.
    const broken = entries.flatMap((entry) => {
      const gone = [...runtimeClosure([entry])].filter((file) => deleted.some((folder) => folder.test(file))).sort();
      return gone.length === 0 ? [] : [`${entry} loads ${gone.join(', ')}, which the image's build deletes`];
    });
    expect(broken).toEqual([]);
  });

  it('every declared package is used: imported, run as a command, named by a config, a peer of one used, or the types of one', () => {
    const imported = new Set(files.flatMap((file) => (importsByFile.get(file) ?? []).flatMap(({ specifier }) => packageOf(specifier) ?? [])));
    const needed = neededOf(declaredInRoot, imported, true);
    const unused = [...declaredInRoot].filter((name) => !needed.has(name)).sort();
    expect(unused).toEqual([]);
  });

  it('every production dependency is loaded by what the image runs (else it belongs in devDependencies)', () => {
    const loadedByImage = new Set(
      [...runtimeClosure(startedByImage())].flatMap((file) => (importsByFile.get(file) ?? []).flatMap(({ specifier, typeOnly }) => (typeOnly ? [] : (packageOf(specifier) ?? [])))),
    );
    // The CLI's package declares its dependencies in the root's too (the last test), for the monorepo's build.
    const needed = neededOf(productionDependencies, new Set([...loadedByImage, ...Object.keys(cliManifest.dependencies ?? {})]), false);
    const notLoaded = [...productionDependencies].filter((name) => !needed.has(name)).sort();
    expect(notLoaded).toEqual([]);
  });

  it('the CLI package leaves as imports only its own dependencies, and its sources import only those', () => {
    const cliSources = files.filter((file) => file.startsWith('apps/cli/src/') && !/\.spec\.ts$/.test(file));
    expect(cliSources).toContain('apps/cli/src/main.ts');
    const own = new Set(Object.keys(cliManifest.dependencies ?? {}));
    expect(undeclaredValueImports(cliSources, (name) => own.has(name), 'the CLI package would load it, but it is not in apps/cli/package.json "dependencies"')).toEqual([]);
    // Its dependencies are the root's too (the monorepo builds and tests the CLI from the root's node_modules), at the same version.
    expect([...own].filter((name) => rootManifest.dependencies?.[name] !== cliManifest.dependencies?.[name])).toEqual([]);
  });
});
