import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { cliEnvironment } from './testing/openpaw-cli.js';

/**
 * The shell commands the user docs show are run (issue 26: "commands shown in docs are run by a
 * test, or parsed where they cannot run"). Every command of a fenced `sh` block, of the README's
 * indented blocks and of its inline `./scripts/...` code is extracted; each is either run with bash,
 * as written, from the repository root against a live gateway (the built CLI on PATH as `openpaw`),
 * and must exit 0 (or the `exit N` its comment states), or it is classed not runnable here by a
 * general rule or the table below, each with its reason. A command with no class fails the test, and
 * so does a table entry no doc shows any more.
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');

/** The documents a user reads: the README, the CLI's README, and docs/ (the ADRs excepted: records, not instructions). */
function userDocs(): string[] {
  const docs = ['README.md', 'apps/cli/README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && path !== join('docs', 'adr')) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) docs.push(path);
    }
  };
  walk('docs');
  return docs;
}

interface DocCommand {
  readonly doc: string;
  /** The command as written (continuation lines joined), without its trailing `# comment`. */
  readonly command: string;
  readonly comment: string;
  /** Every command of the block it is in (a block is read as one sequence). */
  readonly block: readonly string[];
}

/** Splits a shell line into its command and its trailing comment (a `#` after whitespace, outside quotes). */
function splitComment(line: string): { command: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return { command: line.slice(0, i).trim(), comment: line.slice(i + 1).trim() };
  }
  return { command: line.trim(), comment: '' };
}

/** The shell commands of one markdown document. */
function docCommands(doc: string, markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const addBlock = (lines: readonly string[]): void => {
    const joined = lines.join('\n').replace(/\\\n\s*/g, ' ').split('\n');
    const parsed = joined.map(splitComment).filter((line) => line.command !== '');
    const block = parsed.map((line) => line.command);
    for (const line of parsed) commands.push({ doc, ...line, block });
  };
  for (const [, body] of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) addBlock(body!.split('\n'));
  // Indented code blocks (after a blank line) whose lines are commands: `./scripts/up.sh`.
  for (const [, body] of markdown.matchAll(/\n\n((?: {4}\S.*\n)+)/g)) {
    const lines = body!.split('\n').map((line) => line.slice(4));
    if (lines.filter((line) => line !== '').every((line) => /^(?:\.\/|openpaw )/.test(line))) addBlock(lines);
  }
  // Inline code in prose that is a command to type.
  for (const [, code] of markdown.matchAll(/`(\.\/scripts\/[^`]+)`/g)) addBlock([code!]);
  return commands;
}

type Class = { readonly run: true; readonly exitCode: number } | { readonly run: false; readonly reason: string };

/** Tools that operate a deployed cluster: a block using one is the runbook's, for an operator there. */
const CLUSTER_TOOLS = new Set(['kubectl', 'nats', 'helm']);

/** The programs a command line calls: its first word, and the first word after `|`, `;`, `&&`, `$(`, `<(`. */
function programsOf(command: string): string[] {
  return [...command.matchAll(/(?:^|\||;|&&|\$\(|<\()\s*(?:[A-Za-z_]\w*=\S*\s+)*([\w./-]+)/g)].map(([, word]) => word!);
}

/**
 * Commands the general rules below cannot class, by their exact text, with why they are not run
 * here. A doc that changes one of these lines drops out of this table (and the test says so).
 */
const NOT_RUN_HERE: Readonly<Record<string, string>> = {
  'node tools/pack-cli.mjs /tmp/openpaw-pack': 'packs the CLI for an install: apps/cli/src/package.int.spec.ts packs and installs it into a temporary prefix',
  'openpaw keys test openai': 'one call to OpenAI with the reader’s key (stored by the line before, from their own file)',
  'openpaw keys test anthropic': 'one call to Anthropic with the reader’s key (stored by the line before, from their own file)',
  'openpaw keys remove anthropic': 'removes the key the block’s `keys set` stored from the reader’s own file',
  'openpaw notebook chat biology "Where does the Calvin cycle run?"': 'asks about the source the block’s first line adds from the reader’s own file',
  'openpaw notebook quiz biology --count 5 --difficulty easy': 'a quiz on the source the block’s first line adds from the reader’s own file',
};

/**
 * What a reader types at an interactive verb's questions when they accept what it proposes: `papers`
 * approves each checkpoint (the strategy, then the collection), `research` proceeds at its gate. Every
 * other command reads an empty stdin. The platform here searches only the local library (no internet
 * source) and researches with the local extractive researcher (the reader has no model key).
 */
const ACCEPTING_READER: Readonly<Record<string, string>> = { papers: 'a\n'.repeat(10), research: 'p\n'.repeat(3) };

/** The verb of an `openpaw` command line (`openpaw papers ...`, `./scripts/openpaw solve ...`), if it is one. */
function verbOf(command: string): string | undefined {
  return /^(?:openpaw|\.\/scripts\/openpaw)\s+([a-z]+)/.exec(command)?.[1];
}

/** How a doc command is treated: run (with the exit code it must end with), or not, and why. */
function classOf(command: DocCommand): Class {
  const line = command.command;
  const tool = command.block.flatMap(programsOf).find((program) => CLUSTER_TOOLS.has(program));
  if (tool !== undefined) return { run: false, reason: `operates a deployed cluster (${tool}): the runbook's step, for an operator there` };
  if (/<[A-Za-z][^<>]*>/.test(line) || /(?:^|\s)\[/.test(line) || /"\.\.\."/.test(line) || /\w \| \w+ \| \w/.test(line)) {
    return { run: false, reason: 'a usage template (placeholders, optional parts or alternatives): apps/cli/src/docs.spec.ts checks its verb and options against the CLI' };
  }
  const script = /^\.\/scripts\/(\w+)\.sh$/.exec(line);
  if (script !== null) return { run: false, reason: `${script[1]}.sh installs, runs the whole test suite, or starts or stops the whole platform on this machine's fixed ports: parsed (bash -n), not run` };
  if (/\bnpm install --global\b/.test(line)) return { run: false, reason: 'installs into the machine’s global npm prefix: apps/cli/src/package.int.spec.ts installs the packed CLI into a temporary prefix' };
  const url = /https?:\/\/([^/\s"']+)/.exec(line);
  if (url !== null && !/^(?:127\.0\.0\.1|localhost)(?::\d+)?$/.test(url[1] ?? '')) return { run: false, reason: `fetches ${url[0]} on the internet` };
  const ownFile = [...line.matchAll(/(?:^|\s)(?:<\s*)?(\.?\/?[\w./-]+\.(?:png|jpe?g|pdf|txt|bib|md))(?=\s|$)/g)].map(([, path]) => path!).find((path) => !existsSync(join(root, path)));
  if (ownFile !== undefined) return { run: false, reason: `names the reader’s own file ${ownFile}` };
  const listed = NOT_RUN_HERE[line];
  if (listed !== undefined) return { run: false, reason: listed };
  const stated = /\bexit (\d)\b/.exec(command.comment);
  return { run: true, exitCode: stated === null ? 0 : Number(stated[1]) };
}

const PAPERS_COMMAND = 'openpaw papers "graph neural networks with attention since 2016"';
const RESEARCH_COMMAND = 'openpaw research "How efficient are heat pumps in cold climates?"';
const commands = userDocs().flatMap((doc) => docCommands(doc, readFileSync(join(root, doc), 'utf8')));

describe('the shell commands of the user docs', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let bin: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({ root, natsUrl: nats.url, databaseUrl: await freshDatabase('e2e_docs'), services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'research', 'gateway'] });
    // `openpaw` on PATH is the built CLI, as after the README's install.
    bin = await mkdtemp(join(tmpdir(), 'openpaw-docs-bin-'));
    await writeFile(join(bin, 'openpaw'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'dist/apps/cli/src/main.js')}" "$@"\n`);
    await chmod(join(bin, 'openpaw'), 0o755);
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
    if (bin !== undefined) await rm(bin, { recursive: true, force: true });
  });

  it('are found in README.md, apps/cli/README.md and docs/', () => {
    const docs = new Set(commands.map((c) => c.doc));
    expect([...docs].sort()).toEqual(expect.arrayContaining(['README.md', 'apps/cli/README.md', join('docs', 'ops', 'runbook.md')]));
    expect(commands.length).toBeGreaterThan(40);
  });

  it('each runs as written against a live gateway, or is classed not runnable here with a reason', () => {
    const env = { ...cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'docs-reader', { OPENPAW_BLOB_DIR: platform.blobDir }), PATH: `${bin}:${process.env['PATH'] ?? ''}` };
    const ran: string[] = [];
    const outputs = new Map<string, string>();
    const failures: string[] = [];
    for (const command of commands) {
      const decided = classOf(command);
      if (!decided.run) {
        expect({ command: command.command, reason: decided.reason }).toEqual({ command: command.command, reason: expect.stringMatching(/\w{3}/) });
        continue;
      }
      const result = spawnSync('bash', ['-c', command.command], { cwd: root, env, encoding: 'utf8', timeout: 120_000, input: ACCEPTING_READER[verbOf(command.command) ?? ''] ?? '' });
      outputs.set(command.command, result.stdout);
      ran.push(command.command);
      if (result.status !== decided.exitCode) {
        failures.push(`${command.doc}: \`${command.command}\` exited ${String(result.status ?? result.signal)} (expected ${decided.exitCode})\n${result.stdout.slice(-600)}\n${result.stderr.slice(-600)}`);
      }
    }
    expect(failures).toEqual([]);
    // The docs' runnable core is run: the CLI's version, completion, a solve end to end, a solve without waiting, the demo library.
    expect(ran).toEqual(
      expect.arrayContaining([
        'openpaw --version',
        'source <(openpaw completion bash)',
        './scripts/openpaw solve "2x + 3 = 7"',
        'openpaw solve "2x = 4" --no-wait',
        'openpaw library apps/research/sample-library/openpaw-demo.bib',
        PAPERS_COMMAND,
        RESEARCH_COMMAND,
      ]),
    );
    // The paper search found the demo library's papers on graph attention (both checkpoints approved),
    // and the research answered with the local extractive researcher's report.
    expect(outputs.get(PAPERS_COMMAND)).toMatch(/checkpoint 1 of iteration 1[\s\S]*checkpoint 2 of iteration 1[\s\S]*completed \(\w+\) after 1 iteration: [1-9]\d* papers[\s\S]*Graph Attention Networks/);
    expect(outputs.get(RESEARCH_COMMAND)).toMatch(/local: completed \(local\/extractive[\s\S]*Report by local:[\s\S]*Local extractive researcher/);
  });

  it('that cannot run here parse: the scripts with bash -n', () => {
    const scripts = [...new Set(commands.map((c) => /^\.\/scripts\/\w+\.sh$/.exec(c.command)?.[0]).filter((s): s is string => s !== undefined))];
    expect(scripts).toEqual(expect.arrayContaining(['./scripts/test.sh', './scripts/up.sh', './scripts/down.sh']));
    for (const script of scripts) expect({ script, ...pick(spawnSync('bash', ['-n', join(root, script)], { encoding: 'utf8' })) }).toEqual({ script, status: 0, stderr: '' });
  });

  it('lists in its table only commands a doc still shows', () => {
    const shown = new Set(commands.map((c) => c.command));
    expect(Object.keys(NOT_RUN_HERE).filter((line) => !shown.has(line))).toEqual([]);
  });
});

function pick(result: { status: number | null; stderr: string }): { status: number | null; stderr: string } {
  return { status: result.status, stderr: result.stderr };
}
