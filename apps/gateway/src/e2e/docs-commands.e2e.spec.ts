import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { parseAllDocuments } from 'yaml';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalog, deadLetterSubjectOf, STREAMS } from '@openpaw/contracts';
import { DLQ_HEADERS, subjectMatches } from '@openpaw/messaging';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, renderProblemPng, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer, type WireRequest } from '@openpaw/testkit';
// The notebook doc lines add a PDF: the artifacts service's own test support writes a minimal one.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { minimalPdf } from '../../../artifacts/src/domain/test-support/minimal-pdf.js';
import { cliEnvironment } from './testing/openpaw-cli.js';

/**
 * The shell commands the user docs show are run (issue 26: "commands shown in docs are run by a
 * test, or parsed where they cannot run"). Every command of a fenced `sh` block, of the README's
 * indented blocks and of its inline `./scripts/...` code is extracted; each is either run with bash,
 * as written, from a copy of the repository root (its entries linked, beside the reader's own files
 * this test makes) against a live gateway (the built CLI on PATH as `openpaw`; the research
 * service's model providers are local wire servers that accept only the reader's keys), and must
 * exit 0 (or the `exit N` its comment states), or it is classed: parsed (a usage template, a
 * script), run by another named spec (which must contain it), or not run at all, with why. A command
 * with no class fails the test, and so does a table entry no doc shows any more. A URL on a host
 * reserved for documentation (`https://example.com/p`) is run against this test's page server, same
 * path; the runbook's `kubectl` lines, which no test runs, are checked for what they name and the pod
 * they would make; its `nats` lines are run by tools/runbook-nats.int.spec.ts.
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

/**
 * How a doc command is treated: run here (with the exit code it must end with); parsed (a usage
 * template, a script), and where; run by another spec, which must contain it; not run by any test,
 * only by exact text from the table below, with why; or unclassed, which fails the test.
 */
type Class =
  /** `documentationUrl`: a URL on a host reserved for documentation, which the run serves locally (see `DOCUMENTATION_HOST`). */
  | { readonly kind: 'run'; readonly exitCode: number; readonly documentationUrl?: string }
  | { readonly kind: 'parsed'; readonly reason: string }
  | { readonly kind: 'elsewhere'; readonly spec: string; readonly runs: string }
  | { readonly kind: 'not run'; readonly reason: string }
  | { readonly kind: 'unclassed'; readonly problem: string };

/** Tools that operate a deployed cluster: a line using one is run by no test unless listed (and then not run). */
const CLUSTER_TOOLS = new Set(['kubectl', 'nats', 'helm']);

/** The programs a command line calls: its first word, and the first word after `|`, `;`, `&&`, `$(`, `<(`. */
function programsOf(command: string): string[] {
  return [...command.matchAll(/(?:^|\||;|&&|\$\(|<\()\s*(?:[A-Za-z_]\w*=\S*\s+)*([\w./-]+)/g)].map(([, word]) => word!);
}

/**
 * The doc lines no test runs, by their exact text, each with why: a gap, listed so that it is seen.
 * Any other line a test does not run fails, and so does an entry no doc shows any more.
 */
const KUBECTL =
  'the runbook’s `kubectl` step against a cluster: kubectl is on this machine, but no Kubernetes API is, and a scripted one would answer only what this test wrote (a log, a Job’s condition); what the line names, and the pod a `kubectl run` line would make (containers, ServiceAccount, the NetworkPolicies its labels select), is checked against deploy/k8s (“the runbook’s kubectl lines name …” below)';
const NOT_RUN_HERE: Readonly<Record<string, string>> = {
  "kubectl -n openpaw logs job/<latest openpaw-retention-...>": KUBECTL,
  "kubectl -n openpaw create job --from=cronjob/openpaw-retention retention-now": KUBECTL,
  "kubectl -n openpaw run read-step-logs --rm -it --restart=Never --image=<openpaw image>  --overrides='{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"openpaw-retention\",\"app.kubernetes.io/part-of\":\"openpaw\"}},\"spec\":{\"serviceAccountName\":\"openpaw-retention\",\"containers\":[{\"name\":\"r\",\"image\":\"<openpaw image>\",\"envFrom\":[{\"configMapRef\":{\"name\":\"openpaw-config\"}}],\"command\":[\"node\",\"dist/tools/read-step-logs.js\",\"<run id>\"]}]}}'": KUBECTL,
  "kubectl -n openpaw apply -f deploy/k8s/openpaw-maths-reindex-dry-run.yaml": KUBECTL,
  "kubectl -n openpaw wait --for=condition=complete --timeout=2h job/openpaw-maths-reindex-dry-run": KUBECTL,
  "kubectl -n openpaw logs job/openpaw-maths-reindex-dry-run": KUBECTL,
};

/**
 * Hosts reserved for documentation (RFC 2606 and 6761: example.com/.net/.org and `.example`): no
 * page is ever served there, so a doc line naming one is run with the URL pointed at this test's
 * page server, same path (`https://example.com/p` → `http://127.0.0.1:<port>/p`), and must fetch it.
 * Any other internet URL is unclassed. The literal URL cannot be served here: the ingestion service
 * resolves the host itself and refuses private addresses (its test entrypoint allows loopback only).
 */
const DOCUMENTATION_HOST = /^(?:(?:[\w-]+\.)*example\.(?:com|net|org)|(?:[\w-]+\.)*example)$/i;

/** The problem the reader's page (served for a documentation URL) shows, and what its solve must print. */
const PAGE_PROBLEM = { text: 'Solve for n: 5n + 5 = 40', answer: /^answer: {4}n = 7$/m } as const;

/**
 * The runbook's `nats` lines run, as written, against a real nats-server (through a stand-in of the
 * nats CLI, which is not on this machine: `tools/testing/nats-cli-stand-in.ts`).
 */
const RUNBOOK_NATS_SPEC = 'tools/runbook-nats.int.spec.ts';

/**
 * Commands another spec runs, by their exact text: the spec (relative to the root) and the text of it
 * that runs the command, which it must still contain.
 */
const RUN_BY_SPEC: Readonly<Record<string, { readonly spec: string; readonly runs: string }>> = {
  ...Object.fromEntries(
    [
      'nats stream info OPENPAW_DLQ',
      'nats stream subjects OPENPAW_DLQ',
      "nats stream view OPENPAW_DLQ --subject 'openpaw.dlq.cmd.solve.>' --raw=false",
      'nats stream get OPENPAW_DLQ <seq>',
      'nats stream get OPENPAW_DLQ <seq> --json > dl.json',
      "jq -r '.hdrs' dl.json | base64 -d | tr -d '\\r' > dl.headers",
      "subject=$(sed -n 's/^Openpaw-Dlq-Original-Subject: //p' dl.headers)",
      "msgid=$(sed -n 's/^Openpaw-Dlq-Original-Msg-Id: //p' dl.headers)",
      'test -n "$subject" && test -n "$msgid"',
      'jq -r \'.data\' dl.json | base64 -d | nats pub "$subject" --force-stdin --header "Nats-Msg-Id:$msgid"  --header \'Content-Type:application/cloudevents+json\' --jetstream',
      'nats stream rmm OPENPAW_DLQ <seq> -f',
    ].map((line) => [line, { spec: RUNBOOK_NATS_SPEC, runs: "runbookBlocks('Dead letters: inspect, redrive, discard')" }]),
  ),
  "nats consumer add OPENPAW_EVENTS replay-$(date +%s) --pull --ack explicit  --deliver 2026-11-20T00:00:00Z --filter 'openpaw.evt.workflow.>' --defaults": {
    spec: RUNBOOK_NATS_SPEC,
    runs: "runbookBlocks('Replay')",
  },
  'node tools/pack-cli.mjs /tmp/openpaw-pack': { spec: 'apps/cli/src/package.int.spec.ts', runs: "'tools/pack-cli.mjs'" },
  'npm install --global /tmp/openpaw-pack/openpaw-cli-0.2.0.tgz': { spec: 'apps/cli/src/package.int.spec.ts', runs: "'install', '--global'" },
};

/** The photosynthesis notes the reader's PDF holds (one sentence a line). */
const PHOTOSYNTHESIS = [
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'Chloroplasts are the organelles where photosynthesis happens in plant cells.',
  'Chlorophyll is the green pigment that absorbs red and blue light in the thylakoid membranes.',
  'The Calvin cycle runs in the stroma and uses ATP and NADPH to build sugars from carbon dioxide.',
  'Stomata are small pores in leaves that let carbon dioxide enter the plant.',
];

/** The reader's model-provider keys, as their own key files hold them. */
const READER_KEYS = { openai: 'sk-docs-reader-openai-0123456789', anthropic: 'sk-ant-docs-reader-0123456789' } as const;

/**
 * The reader's own files the docs name (`./photo.png`, `< openai-key.txt`), made by this test in the
 * directory the commands run from: a file a doc names that is neither in the repository nor here
 * fails the test.
 */
const READER_FILES: Readonly<Record<string, () => Promise<Buffer>>> = {
  'photo.png': () => renderProblemPng('3x + 1 = 10'),
  'photosynthesis.pdf': () => Promise.resolve(minimalPdf(PHOTOSYNTHESIS)),
  'openai-key.txt': () => Promise.resolve(Buffer.from(`${READER_KEYS.openai}\n`)),
  'anthropic-key.txt': () => Promise.resolve(Buffer.from(`${READER_KEYS.anthropic}\n`)),
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

/** How a doc command is treated (see `Class`). */
function classOf(command: DocCommand): Class {
  const line = command.command;
  const listed = NOT_RUN_HERE[line];
  if (listed !== undefined) return { kind: 'not run', reason: listed };
  const runBy = RUN_BY_SPEC[line];
  if (runBy !== undefined) return { kind: 'elsewhere', ...runBy };
  const tool = programsOf(line).find((program) => CLUSTER_TOOLS.has(program));
  if (tool !== undefined) return { kind: 'unclassed', problem: `operates a deployed cluster (${tool}): run it against the test's platform, or list it in NOT_RUN_HERE with why` };
  if (/<[A-Za-z][^<>]*>/.test(line) || /(?:^|\s)\[/.test(line) || /"\.\.\."/.test(line) || /\w \| \w+ \| \w/.test(line)) {
    return { kind: 'parsed', reason: 'a usage template (placeholders, optional parts or alternatives): apps/cli/src/docs.spec.ts checks its verb and options against the CLI' };
  }
  const script = /^\.\/scripts\/(\w+)\.sh$/.exec(line);
  if (script !== null) return { kind: 'parsed', reason: `${script[1]}.sh installs, runs the whole test suite, or starts or stops the whole platform on this machine's fixed ports: parsed (bash -n) below` };
  const url = /https?:\/\/([^/\s"':]+)(?::\d+)?[^\s"']*/.exec(line);
  const stated = /\bexit (\d)\b/.exec(command.comment);
  const exitCode = stated === null ? 0 : Number(stated[1]);
  if (url !== null && DOCUMENTATION_HOST.test(url[1] ?? '')) return { kind: 'run', exitCode, documentationUrl: url[0] };
  if (url !== null && !/^(?:127\.0\.0\.1|localhost)(?::\d+)?$/.test(url[1] ?? '')) return { kind: 'unclassed', problem: `fetches ${url[0]} on the internet, which no test reaches` };
  const ownFile = [...line.matchAll(/(?:^|\s)(?:<\s*)?(\.?\/?[\w./-]+\.(?:png|jpe?g|pdf|txt|bib|md|json))(?=\s|$)/g)]
    .map(([, path]) => path!)
    .find((path) => !existsSync(join(root, path)) && READER_FILES[path.replace(/^\.\//, '')] === undefined);
  if (ownFile !== undefined) return { kind: 'unclassed', problem: `names ${ownFile}, neither in the repository nor among the reader's files this test makes (READER_FILES)` };
  return { kind: 'run', exitCode };
}

const PAPERS_COMMAND = 'openpaw papers "graph neural networks with attention since 2016"';
const RESEARCH_COMMAND = 'openpaw research "How efficient are heat pumps in cold climates?"';
const NOTEBOOK_CHAT = 'openpaw notebook chat biology "Where does the Calvin cycle run?"';
const NOTEBOOK_QUIZ = 'openpaw notebook quiz biology --count 5 --difficulty easy';
const SOLVE_URL = 'openpaw solve https://example.com/p';
/** How long one doc command may take before it is killed (a solve, a paper search or a research end to end). */
const COMMAND_TIMEOUT_MS = 120_000;
const commands = userDocs().flatMap((doc) => docCommands(doc, readFileSync(join(root, doc), 'utf8')));

/** A model provider that answers only the reader's key (401 otherwise, as the provider does), with a short report. */
const readerKeyOnly =
  (provider: keyof typeof READER_KEYS) =>
  (request: WireRequest): WireAnswer =>
    request.apiKey === READER_KEYS[provider] ? { text: 'Heat pumps keep a coefficient of performance above 2 down to -15 °C; defrost cycles cost efficiency.' } : { status: 401, message: 'Incorrect API key provided', errorType: 'authentication_error' };

describe('the shell commands of the user docs', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;
  let pages: Server;
  /** The paths the page server was asked for. */
  const pagesServed: string[] = [];
  let bin: string;
  /** Where the commands run: the repository root's entries, linked, beside the reader's own files. */
  let readerDir: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    openai = await startOpenAiWireServer(readerKeyOnly('openai'));
    anthropic = await startAnthropicWireServer(readerKeyOnly('anthropic'));
    pages = createServer((request, response) => {
      pagesServed.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(PAGE_PROBLEM.text);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_docs'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'artifacts', 'research', 'gateway'],
      // Problem URLs on 127.0.0.1 are fetched: the page server stands in for a documentation host.
      entries: { ingestion: 'testing/loopback-main.js' },
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      // The providers behind the reader's keys are the wire servers; the platform has no key of its own
      // (a reader's install), so its own calls (the paper search's skills) stay local: no model of its
      // own, not even the wire servers' base URLs (which alone would make OpenAI's a configured model).
      serviceEnv: { research: { OPENAI_BASE_URL: openai.baseUrl, ANTHROPIC_BASE_URL: anthropic.baseUrl, OPENPAW_LLM_MODEL: 'local/deterministic', OPENPAW_LLM_FALLBACK_MODELS: 'local/deterministic', OPENPAW_LLM_MAX_ATTEMPTS: '1' } },
    });
    // `openpaw` on PATH is the built CLI, as after the README's install.
    bin = await mkdtemp(join(tmpdir(), 'openpaw-docs-bin-'));
    await writeFile(join(bin, 'openpaw'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'dist/apps/cli/src/main.js')}" "$@"\n`);
    await chmod(join(bin, 'openpaw'), 0o755);
    readerDir = await mkdtemp(join(tmpdir(), 'openpaw-docs-reader-'));
    for (const entry of readdirSync(root)) if (READER_FILES[entry] === undefined) await symlink(join(root, entry), join(readerDir, entry));
    for (const [name, make] of Object.entries(READER_FILES)) await writeFile(join(readerDir, name), await make());
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
    await anthropic?.close();
    await new Promise((resolve) => (pages === undefined ? resolve(undefined) : pages.close(resolve)));
    for (const dir of [bin, readerDir]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('are found in README.md, apps/cli/README.md and docs/', () => {
    const docs = new Set(commands.map((c) => c.doc));
    expect([...docs].sort()).toEqual(expect.arrayContaining(['README.md', 'apps/cli/README.md', join('docs', 'ops', 'runbook.md')]));
    expect(commands.length).toBeGreaterThan(40);
  });

  it('each runs as written against a live gateway, or is parsed, or run by a named spec, or listed as run by none', async () => {
    const env = { ...cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'docs-reader', { OPENPAW_BLOB_DIR: platform.blobDir }), PATH: `${bin}:${process.env['PATH'] ?? ''}` };
    const ran: string[] = [];
    const outputs = new Map<string, string>();
    const failures: string[] = [];
    for (const command of commands) {
      const decided = classOf(command);
      if (decided.kind === 'unclassed') failures.push(`${command.doc}: \`${command.command}\` is run by no test: ${decided.problem}`);
      if (decided.kind === 'elsewhere' && !readFileSync(join(root, decided.spec), 'utf8').includes(decided.runs)) {
        failures.push(`${command.doc}: \`${command.command}\` is said to be run by ${decided.spec}, which no longer contains ${decided.runs}`);
      }
      if (decided.kind !== 'run') continue;
      const local = decided.documentationUrl === undefined ? undefined : new URL(decided.documentationUrl);
      const line = local === undefined ? command.command : command.command.replace(decided.documentationUrl!, `http://127.0.0.1:${(pages.address() as AddressInfo).port}${local.pathname}${local.search}`);
      const result = await runBash(line, { cwd: readerDir, env, input: ACCEPTING_READER[verbOf(command.command) ?? ''] ?? '' });
      outputs.set(command.command, result.stdout);
      ran.push(command.command);
      if (result.status !== decided.exitCode) {
        failures.push(`${command.doc}: \`${command.command}\` exited ${String(result.status ?? result.signal)} (expected ${decided.exitCode})\n${result.stdout.slice(-600)}\n${result.stderr.slice(-600)}`);
      }
    }
    expect(failures).toEqual([]);
    // The docs' runnable core is run: the CLI's version, completion, a solve end to end (text and the
    // reader's photo), a solve without waiting, the demo library, the reader's keys, their notebook.
    expect(ran).toEqual(
      expect.arrayContaining([
        'openpaw --version',
        'source <(openpaw completion bash)',
        './scripts/openpaw solve "2x + 3 = 7"',
        'openpaw solve ./photo.png',
        'openpaw solve "2x = 4" --no-wait',
        SOLVE_URL,
        'openpaw library apps/research/sample-library/openpaw-demo.bib',
        PAPERS_COMMAND,
        RESEARCH_COMMAND,
        'openpaw keys set openai < openai-key.txt',
        'openpaw keys test openai',
        'openpaw keys set anthropic < anthropic-key.txt',
        'openpaw keys test anthropic',
        'openpaw keys remove anthropic',
        'openpaw notebook add biology ./photosynthesis.pdf',
        NOTEBOOK_CHAT,
        NOTEBOOK_QUIZ,
      ]),
    );
    // The paper search found the demo library's papers on graph attention (both checkpoints approved),
    // and the research answered with the local extractive researcher's report.
    expect(outputs.get(PAPERS_COMMAND)).toMatch(/checkpoint 1 of iteration 1[\s\S]*checkpoint 2 of iteration 1[\s\S]*completed \(\w+\) after 1 iteration: [1-9]\d* papers[\s\S]*Graph Attention Networks/);
    expect(outputs.get(RESEARCH_COMMAND)).toMatch(/local: completed \(local\/extractive/);
    // Each key test was one call with the reader's key from their file (the provider refuses any other).
    expect(openai.requests.filter((r) => r.apiKey === READER_KEYS.openai).length).toBeGreaterThanOrEqual(1);
    expect(anthropic.requests.map((r) => r.apiKey)).toEqual([READER_KEYS.anthropic]);
    expect(outputs.get('openpaw keys test anthropic')).toMatch(/\bok\b/);
    // The URL's page was fetched (its path as the doc wrote it) and its problem solved: the answer printed.
    expect(pagesServed).toContain('/p');
    expect(outputs.get(SOLVE_URL)).toMatch(PAGE_PROBLEM.answer);
    expect(outputs.get('./scripts/openpaw solve "2x + 3 = 7"')).toMatch(/^answer: {4}x = 2$/m);
    // The chat and the quiz are about the reader's PDF.
    expect(outputs.get(NOTEBOOK_CHAT)).toMatch(/stroma/i);
    expect(outputs.get(NOTEBOOK_QUIZ)).toMatch(/^1\. [\s\S]*answer: /m);
  }, 600_000);

  it('that cannot run here parse: the scripts with bash -n', () => {
    const scripts = [...new Set(commands.map((c) => /^\.\/scripts\/\w+\.sh$/.exec(c.command)?.[0]).filter((s): s is string => s !== undefined))];
    expect(scripts).toEqual(expect.arrayContaining(['./scripts/test.sh', './scripts/up.sh', './scripts/down.sh']));
    for (const script of scripts) expect({ script, ...pick(spawnSync('bash', ['-n', join(root, script)], { encoding: 'utf8' })) }).toEqual({ script, status: 0, stderr: '' });
  });

  it('lists in its tables only commands a doc still shows', () => {
    const shown = new Set(commands.map((c) => c.command));
    expect([...Object.keys(NOT_RUN_HERE), ...Object.keys(RUN_BY_SPEC)].filter((line) => !shown.has(line))).toEqual([]);
  });
});

/** The kinds `kubectl` names by their short resource name (`job/x`, `--from=cronjob/x`). */
const KUBECTL_KINDS: Readonly<Record<string, string>> = { job: 'Job', cronjob: 'CronJob', deployment: 'Deployment', configmap: 'ConfigMap', service: 'Service', scaledobject: 'ScaledObject' };

/** The parts of a Kubernetes object these checks read. */
interface K8sObject {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly podSelector?: { readonly matchLabels?: Readonly<Record<string, string>> };
    readonly policyTypes?: readonly string[];
    readonly egress?: readonly unknown[];
    readonly template?: PodTemplate;
    readonly jobTemplate?: { readonly spec?: { readonly template?: PodTemplate } };
  };
}

interface PodTemplate {
  readonly metadata?: K8sObject['metadata'];
  readonly spec?: { readonly serviceAccountName?: string; readonly containers?: readonly { readonly name?: string; readonly image?: string }[] };
}

/** The objects a manifest file defines, by `Kind/namespace/name` (a Namespace, cluster-scoped, as `Namespace//name`: cdk8s writes it a namespace too). */
function manifestObjects(file: string): [string, K8sObject][] {
  return parseAllDocuments(readFileSync(join(root, file), 'utf8')).flatMap((doc): [string, K8sObject][] => {
    const object = doc.toJSON() as K8sObject | null;
    const namespace = object?.kind === 'Namespace' ? '' : (object?.metadata?.namespace ?? '');
    return object?.kind === undefined ? [] : [[`${object.kind}/${namespace}/${object.metadata?.name ?? ''}`, object]];
  });
}

/** RFC 7396 JSON merge patch: what `kubectl run --overrides` does by default (`--override-type=merge`): a list in the patch replaces the list. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Whether a NetworkPolicy's pod selector (matchLabels only, as deploy/k8s writes them) selects a pod with `labels`. */
const selects = (policy: K8sObject, labels: Readonly<Record<string, string>>): boolean =>
  Object.entries(policy.spec?.podSelector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);

/**
 * What a `kubectl run` line's pod would be, built as kubectl builds it (name, `run=<name>` label, one
 * container of the image; then `--overrides` merged in), and what is wrong with it in the cluster
 * deploy/k8s makes: more than one container, a ServiceAccount the chart does not define (the
 * namespace's `default` has none of the platform's cloud identity), or labels that only policies
 * allowing no egress select (the chart's default-deny leaves such a pod no network, not even DNS).
 */
function runPodProblems(line: string, namespace: string, known: ReadonlyMap<string, K8sObject>): string[] {
  const name = /\bkubectl\b.*?\brun\s+([a-z0-9][a-z0-9-]*)/.exec(line)?.[1];
  if (name === undefined) return [];
  const image = /--image=(\S+)/.exec(line)?.[1] ?? '';
  const extraLabels = Object.fromEntries((/(?:--labels|-l)[= ](\S+)/.exec(line)?.[1] ?? '').split(',').filter((pair) => pair.includes('=')).map((pair) => pair.split('=') as [string, string]));
  const generated = { metadata: { name, namespace, labels: { run: name, ...extraLabels } }, spec: { containers: [{ name, image }] } };
  const overrides = /--overrides='([^']*)'/.exec(line)?.[1];
  const pod = (overrides === undefined ? generated : mergePatch(generated, JSON.parse(overrides))) as PodTemplate;
  const problems: string[] = [];
  const containers = pod.spec?.containers ?? [];
  if (containers.length !== 1) problems.push(`its pod would run ${containers.length} containers (${containers.map((c) => c.name).join(', ')}), not one`);
  const serviceAccount = pod.spec?.serviceAccountName ?? 'default';
  if (!known.has(`ServiceAccount/${namespace}/${serviceAccount}`)) problems.push(`its pod runs as ServiceAccount ${serviceAccount}, which deploy/k8s does not define in ${namespace} (no identity of the platform's)`);
  const labels = pod.metadata?.labels ?? {};
  const policies = [...known.values()].filter((object) => object.kind === 'NetworkPolicy' && object.metadata?.namespace === namespace && selects(object, labels));
  const egressPolicies = policies.filter((policy) => policy.spec?.policyTypes?.includes('Egress') === true);
  if (egressPolicies.length > 0 && egressPolicies.every((policy) => (policy.spec?.egress ?? []).length === 0)) {
    problems.push(`its pod (labels ${Object.entries(labels).map(([key, value]) => `${key}=${value}`).join(',')}) is selected only by NetworkPolicies that allow it no egress (${egressPolicies.map((policy) => policy.metadata?.name ?? '').join(', ')}): it can reach nothing`);
  }
  return problems;
}

/** The pod template of a Job or CronJob. */
const podTemplateOf = (object: K8sObject | undefined): PodTemplate | undefined => object?.spec?.template ?? object?.spec?.jobTemplate?.spec?.template;

/**
 * What a `kubectl` doc line names that the repository must define, each a problem when it does not:
 * its namespace (`-n`), every `kind/name` (and `--from=kind/name`) among deploy/k8s's objects or the
 * files applied before it in its block (`-f`), a `<latest NAME-...>` placeholder's CronJob, and in a
 * pod `--overrides` the ConfigMaps it reads and the `dist/....js` it runs (a source file).
 */
function kubectlProblems(line: string, known: Map<string, K8sObject>): string[] {
  const problems: string[] = [];
  const namespace = /(?:^|\s)-n\s+(\S+)/.exec(line)?.[1] ?? 'default';
  if (!known.has(`Namespace//${namespace}`)) problems.push(`namespace ${namespace} is not defined in deploy/k8s`);
  const need = (kind: string, name: string): void => {
    if (!known.has(`${kind}/${namespace}/${name}`)) problems.push(`${kind} ${name} is not in namespace ${namespace} of deploy/k8s (nor applied before it)`);
  };
  for (const [, file] of line.matchAll(/(?:^|\s)-f\s+(\S+)/g)) {
    if (!existsSync(join(root, file!))) problems.push(`${file!} does not exist`);
    else {
      for (const [key, object] of manifestObjects(file!)) {
        // kubectl -n X apply refuses an object that names another namespace.
        if (object.kind !== 'Namespace' && object.metadata?.namespace !== undefined && object.metadata.namespace !== namespace) problems.push(`${file!} puts ${object.kind ?? ''} ${object.metadata.name ?? ''} in namespace ${object.metadata.namespace}, not ${namespace}`);
        known.set(key, object);
      }
    }
  }
  for (const [, resource, name] of line.matchAll(/(?:^|[\s=])([a-z]+)\/([a-z0-9][a-z0-9.-]*)(?=\s|$)/g)) {
    const kind = KUBECTL_KINDS[resource!];
    if (kind === undefined) problems.push(`${resource!}/${name!}: a resource this check does not know`);
    else need(kind, name!);
  }
  for (const [, cronJob] of line.matchAll(/<latest ([a-z0-9-]+?)-\.\.\.>/g)) need('CronJob', cronJob!);
  // `kubectl logs job/X` reads one container: the Job's only one, or the one its pods name as default.
  if (/\blogs\b/.test(line)) {
    const jobs = [...line.matchAll(/\bjob\/([a-z0-9][a-z0-9.-]*)(?=\s|$)/g)].map(([, name]) => known.get(`Job/${namespace}/${name!}`));
    const cronJobs = [...line.matchAll(/<latest ([a-z0-9-]+?)-\.\.\.>/g)].map(([, name]) => known.get(`CronJob/${namespace}/${name!}`));
    for (const template of [...jobs, ...cronJobs].map(podTemplateOf)) {
      const containers = template?.spec?.containers ?? [];
      if (template !== undefined && containers.length !== 1 && template.metadata?.annotations?.['kubectl.kubernetes.io/default-container'] === undefined) {
        problems.push(`its Job's pods have ${containers.length} containers and name no default one: kubectl logs does not know which to read`);
      }
    }
  }
  problems.push(...runPodProblems(line, namespace, known));
  const overrides = /--overrides='([^']*)'/.exec(line)?.[1];
  if (overrides !== undefined) {
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) {
        const { configMapRef, command } = value as { configMapRef?: { name?: string }; command?: unknown };
        if (configMapRef?.name !== undefined) need('ConfigMap', configMapRef.name);
        if (Array.isArray(command)) {
          for (const part of command) {
            const built = typeof part === 'string' ? /^dist\/(.+)\.js$/.exec(part) : null;
            if (built !== null && !existsSync(join(root, `${built[1]!}.ts`))) problems.push(`${part as string} is built from no ${built[1]!}.ts`);
          }
        }
        Object.values(value).forEach(walk);
      }
    };
    walk(JSON.parse(overrides));
  }
  return problems;
}

/** Every subject a stream holds: the catalog's commands and events, and the dead letter of each. */
const STREAM_SUBJECTS = new Map<string, readonly string[]>(
  Object.values(STREAMS).map(({ name, subjects }) => [
    name,
    [...catalog.map((definition) => definition.subject), ...catalog.map((definition) => deadLetterSubjectOf(definition.subject))].filter((subject) => subjects.some((filter) => subjectMatches(filter, subject))),
  ]),
);

/**
 * What a `nats`/`jq` runbook line names that the platform must define, each a problem when it does
 * not: a stream (`nats stream … NAME`, `nats consumer add NAME`), a subject filter (`--subject`,
 * `--filter`) that some catalog subject of that stream matches, and the dead-letter headers it reads.
 */
function natsProblems(line: string): string[] {
  const problems: string[] = [];
  const stream = /\bnats\s+(?:stream\s+\w+|consumer\s+add)\s+(\S+)/.exec(line)?.[1];
  if (stream !== undefined && !STREAM_SUBJECTS.has(stream)) problems.push(`stream ${stream} is none of the platform’s (${[...STREAM_SUBJECTS.keys()].join(', ')})`);
  for (const [, filter] of line.matchAll(/--(?:subject|filter)\s+'([^']+)'/g)) {
    if (!(STREAM_SUBJECTS.get(stream ?? '') ?? []).some((subject) => subjectMatches(filter!, subject))) problems.push(`no subject of ${stream ?? 'any stream'} matches ${filter!}`);
  }
  const headers: readonly string[] = Object.values(DLQ_HEADERS);
  // A header read from `dl.headers` ("Name: value" lines) by `sed -n 's/^Name: //p'`.
  for (const [, header] of line.matchAll(/s\/\^([A-Za-z][\w-]*): \/\/p/g)) if (!headers.includes(header!)) problems.push(`a dead letter carries no header ${header!}`);
  // `nats stream get --json` prints JetStream's stored message: its headers are one base64 block, `hdrs`.
  if (/\.header\b/.test(line) && /\bjq\b/.test(line)) problems.push('the nats CLI\'s JSON of a message has no .header: its headers are .hdrs, one base64 block');
  return problems;
}

describe('the runbook’s nats lines (run by tools/runbook-nats.int.spec.ts)', () => {
  it('name the platform’s streams, subjects a stream holds, and the headers a dead letter carries', () => {
    const lines = commands.filter((c) => RUN_BY_SPEC[c.command]?.spec === RUNBOOK_NATS_SPEC).map((c) => c.command);
    expect(lines.length).toBeGreaterThanOrEqual(12);
    expect(lines.flatMap((line) => natsProblems(line).map((problem) => `\`${line}\`: ${problem}`))).toEqual([]);
    expect(lines.filter((line) => /\bnats\s+(?:stream|consumer)\b|s\/\^[\w-]+: /.test(line)).length).toBeGreaterThanOrEqual(9);
  });

  it('are checked for what they name (a wrong stream, a filter nothing matches, an unknown header fail)', () => {
    expect(natsProblems('nats stream info OPENPAW_DEADLETTERS')).toHaveLength(1);
    expect(natsProblems("nats stream view OPENPAW_DLQ --subject 'openpaw.dlq.cmd.solving.>'")).toEqual(['no subject of OPENPAW_DLQ matches openpaw.dlq.cmd.solving.>']);
    expect(natsProblems("nats consumer add OPENPAW_EVENTS r --filter 'openpaw.evt.workflow.>'")).toEqual([]);
    expect(natsProblems("subject=$(sed -n 's/^Openpaw-Dlq-Subject: //p' dl.headers)")).toEqual(['a dead letter carries no header Openpaw-Dlq-Subject']);
    expect(natsProblems('subject=$(jq -r \'.header["Openpaw-Dlq-Original-Subject"][0]\' dl.json)')).toHaveLength(1);
  });
});

describe('the runbook’s kubectl lines no test runs', () => {
  it('name what deploy/k8s defines: namespace, objects, applied files, ConfigMaps, the built script a pod runs; a pod they run has one container, a ServiceAccount and labels the chart gives network to; a Job they read logs of, one container', () => {
    const cluster = readdirSync(join(root, 'deploy/k8s')).filter((file) => file.endsWith('.yaml') && !file.includes('dry-run')).flatMap((file) => manifestObjects(join('deploy/k8s', file)));
    const lines = commands.filter((c) => programsOf(c.command).includes('kubectl'));
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const problems = [...new Set(lines.map((c) => c.block))].flatMap((block) => {
      // A block is one sequence: a file applied in it defines objects for the lines after it.
      const known = new Map(cluster);
      return block.filter((line) => programsOf(line).includes('kubectl')).flatMap((line) => kubectlProblems(line, known).map((problem) => `\`${line}\`: ${problem}`));
    });
    expect(problems).toEqual([]);
  });

  it('are checked for what they name and what their pod would be (a renamed CronJob, an unapplied Job, a missing script, a pod without the platform\'s identity or network, two containers, another namespace fail)', () => {
    const known = new Map(readdirSync(join(root, 'deploy/k8s')).filter((file) => !file.includes('dry-run')).flatMap((file) => manifestObjects(join('deploy/k8s', file))));
    expect(kubectlProblems('kubectl -n openpaw create job --from=cronjob/openpaw-retained retention-now', new Map(known))).toEqual(['CronJob openpaw-retained is not in namespace openpaw of deploy/k8s (nor applied before it)']);
    expect(kubectlProblems('kubectl -n openpaw logs job/openpaw-maths-reindex-dry-run', new Map(known))).toHaveLength(1);
    const asRetention = '"metadata":{"labels":{"app.kubernetes.io/name":"openpaw-retention","app.kubernetes.io/part-of":"openpaw"}},"spec":{"serviceAccountName":"openpaw-retention",';
    expect(kubectlProblems(`kubectl -n openpaw run r --overrides='{${asRetention}"containers":[{"name":"r","command":["node","dist/tools/read-step-log.js"]}]}}'`, new Map(known))).toEqual(['dist/tools/read-step-log.js is built from no tools/read-step-log.ts']);
    expect(kubectlProblems(`kubectl -n openpaw run r --overrides='{${asRetention}"containers":[{"name":"r","command":["node","dist/tools/read-step-logs.js"]}]}}'`, new Map(known))).toEqual([]);
    // The pod kubectl makes: labelled run=r (only default-deny selects it), the namespace's default ServiceAccount.
    expect(kubectlProblems('kubectl -n openpaw run r --image=i --overrides=\'{"spec":{"containers":[{"name":"r","command":["node","dist/tools/read-step-logs.js"]}]}}\'', new Map(known))).toEqual([
      'its pod runs as ServiceAccount default, which deploy/k8s does not define in openpaw (no identity of the platform\'s)',
      'its pod (labels run=r) is selected only by NetworkPolicies that allow it no egress (default-deny): it can reach nothing',
    ]);
    // Overrides merged as a JSON merge patch replace the container list; two containers there are two in the pod.
    expect(kubectlProblems(`kubectl -n openpaw run r --overrides='{${asRetention}"containers":[{"name":"a"},{"name":"b"}]}}'`, new Map(known))).toEqual(['its pod would run 2 containers (a, b), not one']);
    // An applied file that puts its objects in another namespace is refused by kubectl -n.
    expect(kubectlProblems('kubectl -n default apply -f deploy/k8s/openpaw-maths-reindex-dry-run.yaml', new Map(known))).toEqual(expect.arrayContaining([expect.stringMatching(/^deploy\/k8s\/openpaw-maths-reindex-dry-run\.yaml puts Job openpaw-maths-reindex-dry-run in namespace openpaw, not default$/)]));
  });
});

/**
 * Runs one command line with bash and collects its output. Not spawnSync: the model providers are
 * wire servers in this process, which must go on answering while the command runs.
 */
function runBash(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; input: string }): Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
    child.stdin.end(options.input);
  });
}

function pick(result: { status: number | null; stderr: string }): { status: number | null; stderr: string } {
  return { status: result.status, stderr: result.stderr };
}
