import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { usage } from './cli.js';
import { EXIT } from './exit-codes.js';
import { GLOBAL_OPTIONS } from './global-options.js';
import { VERBS } from './verbs/index.js';

/**
 * The CLI's docs cannot drift from its registry (issue 26): every `openpaw <verb> --option` the
 * READMEs show is a verb with that option, every verb is shown, every workflow row of the root
 * README names its verb, and the exit-code table is the code's.
 */
const root = join(import.meta.dirname, '../../..');
const rootReadme = readFileSync(join(root, 'README.md'), 'utf8');
const cliReadme = readFileSync(join(root, 'apps/cli/README.md'), 'utf8');
const verbNames = new Set(VERBS.map((verb) => verb.name));

/** Every `openpaw ...` command line in a document's code blocks and inline code, up to a comment. */
function commandLines(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, body]) => body!.split('\n'));
  const inline = [...markdown.matchAll(/`((?:\.\/scripts\/)?openpaw [^`]+)`/g)].map(([, code]) => code!);
  return [...blocks, ...inline]
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => /^(?:\.\/scripts\/)?openpaw\s/.test(line))
    .map((line) => line.replace(/^\.\/scripts\//, ''));
}

describe('CLI docs', () => {
  const lines = [...commandLines(rootReadme), ...commandLines(cliReadme)];

  it('show only verbs the CLI has, with options those verbs take', () => {
    expect(lines.length).toBeGreaterThan(15);
    const problems = lines.flatMap((line) => {
      const word = line.split(/\s+/)[1] ?? '';
      if (word === '--version' || word === '<command>') return [];
      const verb = VERBS.find((v) => v.name === word);
      if (verb === undefined) return [`${line}: no verb "${word}"`];
      const known = new Set([...Object.keys(verb.options), ...Object.keys(GLOBAL_OPTIONS)]);
      // Options before a bare `--` (after it, text is an argument).
      const options = [...(line.split(/\s--\s/)[0] ?? '').matchAll(/(?:^|[\s[])--([a-z][a-z-]*)/g)].map(([, name]) => name!);
      return options.filter((name) => !known.has(name)).map((name) => `${line}: ${word} has no --${name}`);
    });
    expect(problems).toEqual([]);
  });

  it('show every verb in apps/cli/README.md, and `--help` lists the same verbs', () => {
    const shown = new Set(lines.map((line) => line.split(/\s+/)[1]));
    expect([...verbNames].filter((name) => !shown.has(name))).toEqual([]);
    const help = usage();
    expect([...verbNames].filter((name) => !help.includes(`openpaw ${name} `))).toEqual([]);
  });

  it('name a CLI verb in every workflow row of the root README', () => {
    const start = rootReadme.indexOf('## What runs');
    const table = rootReadme.slice(start, rootReadme.indexOf('\n## ', start + 3));
    const rows = table.split('\n').filter((row) => row.startsWith('| ') && !row.startsWith('| workflow'));
    expect(rows.length).toBeGreaterThan(4);
    const withoutVerb = rows.filter((row) => ![...row.matchAll(/`openpaw (\w+)/g)].some(([, name]) => verbNames.has(name!)));
    expect(withoutVerb).toEqual([]);
  });

  it('give the exit codes the code uses', () => {
    const table = [...cliReadme.matchAll(/^\| (\d) \| ([^|]+) \|$/gm)].map(([, code, meaning]) => [Number(code), meaning!.trim()] as const);
    const codes: Record<number, string> = { [EXIT.succeeded]: 'succeeded', [EXIT.failed]: 'failed', [EXIT.usage]: 'usage error', [EXIT.apiError]: 'API error', [EXIT.cancelled]: 'cancelled', [EXIT.stillRunning]: 'still running' };
    expect(table.map(([code]) => code)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(table.filter(([code, meaning]) => !meaning.startsWith(codes[code] ?? '?'))).toEqual([]);
  });
});
