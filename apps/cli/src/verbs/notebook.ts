import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { ApiClient, RunResource } from '../api-client.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { followRun } from '../follow.js';
import type { OptionValues, VerbContext, VerbOutcome } from '../verb.js';
import { UsageError, type Verb } from '../verb.js';

/** What `POST /notebooks/{id}/sources` answers (the fields the verb reads). */
interface SourceResource {
  readonly source_id: string;
  readonly status: 'indexed' | 'pending';
  readonly title?: string;
  readonly chunk_ids?: readonly string[];
  readonly characters?: number;
}

/** What `POST /ai/chat` answers: an artifact job, or a grounded chat answer. */
type ChatAnswer =
  | {
      readonly type: 'artifact_job_created';
      readonly job_id: string;
      readonly status: string;
      readonly artifact_type: ArtifactKind;
      readonly message: string;
      /** A new job's snapshot: `deferred` when the artifacts service was slow and the job takes it as its first step. */
      readonly snapshot?: 'captured' | 'deferred';
    }
  | { readonly type: 'chat_response'; readonly message: string; readonly citations: readonly { chunk_id: string; source_id: string }[]; readonly model: string };

/** What `GET /ai/artifact/{id}` answers. */
interface ArtifactJob {
  readonly job_id: string;
  readonly status: string;
  readonly progress: number;
  readonly artifact_type: ArtifactKind;
  readonly result?: Record<string, unknown>;
  readonly error?: string;
}

type ArtifactKind = 'quiz' | 'flashcards' | 'summary';
const ARTIFACT_KINDS: readonly ArtifactKind[] = ['quiz', 'flashcards', 'summary'];

/** The request each artifact subcommand sends: the intent router reads it as that artifact (spec 02). */
const ARTIFACT_REQUEST: Readonly<Record<ArtifactKind, string>> = {
  quiz: 'Create a quiz',
  flashcards: 'Create flashcards',
  summary: 'Create a summary',
};

/** `--count` means the artifact type's own count option. */
const COUNT_OPTION: Readonly<Record<ArtifactKind, string>> = { quiz: 'num_questions', flashcards: 'num_cards', summary: 'num_points' };

const FILE_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
};

const USAGE = [
  'add <notebook> <file | http(s) URL | "text"> [--title <title>]',
  'chat <notebook> "<question>" [--sources <id,id>]',
  'quiz | flashcards | summary <notebook> [--count <n>] [--difficulty easy|medium|hard] [--sources <id,id>] [--no-wait]',
];

/** `--sources a,b`: only these source ids (uuids) of the notebook. */
function sourceIds(options: OptionValues): string[] | undefined {
  const raw = options['sources'];
  if (typeof raw !== 'string') return undefined;
  const ids = raw.split(',').map((id) => id.trim()).filter((id) => id !== '');
  const bad = ids.find((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
  if (bad !== undefined) throw new UsageError(`--sources: "${bad}" is not a source id (the uuid \`notebook add\` printed)`);
  return ids;
}

/** The request of `notebook add`: an existing file as an upload, an http(s) URL, or the argument as text. */
async function sourceRequest(argument: string, title: string | undefined, cwd: string): Promise<{ init: RequestInit; label: string }> {
  const json = (body: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(title === undefined ? body : { ...body, title }),
  });
  if (/^https?:\/\//i.test(argument)) return { init: json({ url: argument }), label: `URL ${argument}` };
  const path = resolve(cwd, argument);
  const file = await stat(path).catch(() => undefined);
  if (file?.isFile() === true) {
    const form = new FormData();
    form.set('file', new Blob([await readFile(path)], { type: FILE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream' }), basename(path));
    if (title !== undefined) form.set('title', title);
    return { init: { method: 'POST', body: form }, label: `file ${path} (${file.size} bytes)` };
  }
  return { init: json({ text: argument }), label: `text (${argument.length} characters)` };
}

async function addSource({ args, options, io, out, api }: VerbContext, notebook: string): Promise<VerbOutcome> {
  const [argument, ...more] = args;
  if (argument === undefined || argument.trim() === '' || more.length > 0) throw new UsageError(`usage: openpaw notebook ${USAGE[0]}`);
  const title = typeof options['title'] === 'string' ? options['title'] : undefined;
  const { init, label } = await sourceRequest(argument, title, io.cwd);
  const client = await api();
  out(`adding ${label} to notebook ${notebook}`);
  // The gateway holds the answer until the source is indexed (at most 60 s); 202 means still pending.
  const { status, body } = await client.json<SourceResource>(`/notebooks/${encodeURIComponent(notebook)}/sources?wait=60`, init, [202]);
  if (status === 202 || body.status === 'pending') {
    out(`source ${body.source_id}: still being indexed`);
    return { exitCode: EXIT.stillRunning, result: body };
  }
  out(`source ${body.source_id}: indexed${body.title === undefined ? '' : ` "${body.title}"`}, ${body.chunk_ids?.length ?? 0} chunk(s)${body.characters === undefined ? '' : `, ${body.characters} characters`}`);
  return { exitCode: EXIT.succeeded, result: body };
}

async function chat({ args, options, out, api }: VerbContext, notebook: string): Promise<VerbOutcome> {
  const message = args.join(' ').trim();
  if (message === '') throw new UsageError(`usage: openpaw notebook ${USAGE[1]}`);
  const ids = sourceIds(options);
  const { body } = await (await api()).post<ChatAnswer>('/ai/chat', { message, session_id: notebook, ...(ids === undefined ? {} : { source_ids: ids }) });
  if (body.type === 'artifact_job_created') {
    // The router read the question as an artifact request: say which command follows it.
    out(`${body.message} (follow it with: openpaw notebook ${body.artifact_type} ${notebook})`);
    return { exitCode: EXIT.stillRunning, result: body };
  }
  out(body.message);
  const cited = [...new Set(body.citations.map((c) => c.source_id))];
  if (cited.length > 0) out(`\nsources: ${cited.join(', ')}  (model ${body.model})`);
  return { exitCode: EXIT.succeeded, result: body };
}

/** A string field's text, or '' for anything else. */
const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The artifact as a person reads it. */
export function renderArtifact(kind: ArtifactKind, result: Record<string, unknown>): string[] {
  const list = <T>(key: string): T[] => (Array.isArray(result[key]) ? (result[key] as T[]) : []);
  switch (kind) {
    case 'quiz':
      return list<{ question: string; options: string[]; correct_answer: string; explanation: string }>('questions').flatMap((q, i) => [
        `${i + 1}. ${q.question}`,
        ...q.options.map((option, j) => `   ${String.fromCharCode(97 + j)}) ${option}`),
        `   answer: ${q.correct_answer}${q.explanation === '' ? '' : ` — ${q.explanation}`}`,
        '',
      ]);
    case 'flashcards':
      return list<{ front: string; back: string }>('flashcards').flatMap((card, i) => [`${i + 1}. ${card.front}`, `   ${card.back}`, '']);
    case 'summary':
      return [textOf(result['title']), '', textOf(result['summary']), '', ...list<{ point: string }>('key_points').map((p) => `  • ${p.point}`)];
  }
}

/** The exit code of an artifact job's terminal status (spec 02: completed or failed). */
function exitOfJob(status: string): ExitCode {
  if (status === 'completed') return EXIT.succeeded;
  if (status === 'cancelled' || status === 'CANCELLED') return EXIT.cancelled;
  return EXIT.failed;
}

async function artifact({ args, options, io, out, api, timeoutMs }: VerbContext, notebook: string, kind: ArtifactKind): Promise<VerbOutcome> {
  if (args.length > 0) throw new UsageError(`usage: openpaw notebook ${USAGE[2]}`);
  const count = typeof options['count'] === 'string' ? Number(options['count']) : undefined;
  if (count !== undefined && !(Number.isInteger(count) && count >= 1)) throw new UsageError('--count must be a whole number of at least 1');
  const difficulty = options['difficulty'];
  if (difficulty !== undefined && (kind !== 'quiz' || !['easy', 'medium', 'hard'].includes(String(difficulty)))) throw new UsageError('--difficulty: easy, medium or hard, for a quiz');
  const ids = sourceIds(options);
  const client: ApiClient = await api();
  const requested = {
    message: ARTIFACT_REQUEST[kind],
    session_id: notebook,
    ...(ids === undefined ? {} : { source_ids: ids }),
    options: { ...(count === undefined ? {} : { [COUNT_OPTION[kind]]: count }), ...(difficulty === undefined ? {} : { difficulty }) },
  };
  const { body: created } = await client.post<ChatAnswer>('/ai/chat', requested);
  if (created.type !== 'artifact_job_created') throw new Error(`the gateway answered a chat message, not a ${kind} job`);
  const jobId = created.job_id;
  out(`${kind} job ${jobId} (${created.status})`);
  if (created.snapshot === 'deferred') out('  the artifacts service was slow: the job was accepted and captures its sources as its first step');
  if (options['no-wait'] === true) return { exitCode: EXIT.stillRunning, result: { jobId, status: created.status } };

  // Live progress from the job's run events (spec 02: 0 → 20 → 60 → 90 → 100).
  let shown = '';
  const run: RunResource | undefined = await followRun(
    client,
    jobId,
    {
      timeoutMs,
      onRun: (update) => {
        const status = textOf(update.view['status']) || update.state;
        const progress = typeof update.view['progress'] === 'number' ? update.view['progress'] : 0;
        const line = `  ${status.padEnd(10)} ${String(progress).padStart(3)}%`;
        if (line !== shown) out(line);
        shown = line;
        return 'continue';
      },
    },
    io,
  );
  if (run === undefined) {
    io.stderr(`still running after ${timeoutMs / 1000} s: openpaw status ${jobId}`);
    return { exitCode: EXIT.stillRunning, result: { jobId } };
  }
  const { body: job } = await client.json<ArtifactJob>(`/ai/artifact/${jobId}`);
  out('');
  if (job.result !== undefined) for (const line of renderArtifact(kind, job.result)) out(line);
  if (job.error !== undefined) out(`failed: ${job.error}`);
  return { exitCode: exitOfJob(job.status), result: job };
}

/**
 * `openpaw notebook`: spec 02's notebooks. A notebook is named by its id and exists once it has a
 * source (the API has no separate create): `add` indexes a source, `chat` asks a question grounded in
 * the sources, and `quiz`, `flashcards`, `summary` create an artifact job and follow its progress live.
 */
export const notebookVerb: Verb = {
  name: 'notebook',
  summary: 'a study notebook: add sources, chat with them, make a quiz, flashcards or a summary',
  usage: USAGE,
  options: {
    title: { type: 'string' },
    sources: { type: 'string' },
    count: { type: 'string' },
    difficulty: { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  needsApi: true,
  run(context) {
    const [action, notebook, ...rest] = context.args;
    if (action === undefined || notebook === undefined || notebook.trim() === '') throw new UsageError(`usage:\n${USAGE.map((line) => `  openpaw notebook ${line}`).join('\n')}`);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(notebook)) throw new UsageError(`notebook "${notebook}": letters, digits and _ . : - (up to 128), starting with a letter or digit`);
    const inner = { ...context, args: rest };
    if (action === 'add') return addSource(inner, notebook);
    if (action === 'chat') return chat(inner, notebook);
    if ((ARTIFACT_KINDS as readonly string[]).includes(action)) return artifact(inner, notebook, action as ArtifactKind);
    throw new UsageError(`openpaw notebook: add, chat, quiz, flashcards or summary, not "${action}"`);
  },
};
