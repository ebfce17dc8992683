import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { ApiClient, ProblemSubmission, RunResource } from '../api-client.js';
import { EXIT, exitOfRunState } from '../exit-codes.js';
import { type FollowStep, followRun } from '../follow.js';
import type { CliIo } from '../io.js';
import { printSummary } from '../run-summary.js';
import { UsageError, type Verb } from '../verb.js';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
  '.heif': 'image/heic',
};

/** The `POST /problems` request for the arguments: an image upload, a URL, or text. */
export async function submissionRequest(args: readonly string[], intent: string | undefined, cwd: string, confirmReading = false): Promise<{ init: RequestInit; label: string }> {
  const joined = args.join(' ').trim();
  if (joined === '') throw new UsageError('usage: openpaw solve <problem text | image file | http(s) URL>');
  const json = (body: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(intent === undefined ? body : { ...body, intent }),
  });
  if (args.length === 1 && /^https?:\/\//i.test(joined)) return { init: json({ url: joined }), label: `URL ${joined}` };
  if (args.length === 1) {
    const path = resolve(cwd, joined);
    const file = await stat(path).catch(() => undefined);
    if (file?.isFile() === true) {
      const form = new FormData();
      const type = IMAGE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      form.set('file', new Blob([await readFile(path)], { type }), basename(path));
      if (intent !== undefined) form.set('intent', intent);
      if (confirmReading) form.set('confirm_reading', 'true');
      return { init: { method: 'POST', body: form }, label: `image ${path} (${file.size} bytes)` };
    }
  }
  if (confirmReading) throw new UsageError('--confirm-reading is for an image file: text and URLs are read as they are');
  return { init: json({ text: joined }), label: `text "${joined.length > 60 ? `${joined.slice(0, 57)}...` : joined}"` };
}

/**
 * A run waiting for its owner to confirm the reading of an image (`AWAITING_READING_CONFIRMATION`):
 * shows the reading and its doubts, asks on stdin, and answers `POST /runs/{id}/reading`: an empty
 * line or `y` solves it as read, any other line is the corrected problem. `stop` when stdin has ended.
 */
async function answerReading(api: ApiClient, run: RunResource, io: CliIo, out: (line: string) => void): Promise<FollowStep> {
  const reading = (run.view['reading'] ?? {}) as { text?: unknown; doubts?: unknown };
  out(`reading:   ${typeof reading.text === 'string' ? reading.text : ''}`);
  for (const doubt of Array.isArray(reading.doubts) ? reading.doubts : []) out(`  doubt:   ${String(doubt)}`);
  const answer = await io.prompt('solve it as read? [y = yes, or type the corrected problem]: ');
  if (answer === undefined) {
    io.stderr(`the run waits for the reading to be confirmed: POST /runs/${run.runId}/reading, or openpaw solve again with --confirm-reading`);
    return 'stop';
  }
  const corrected = answer.trim();
  await api.post(`/runs/${encodeURIComponent(run.runId)}/reading`, corrected === '' || /^y(es)?$/i.test(corrected) ? { confirm: true } : { text: corrected });
  return 'continue';
}

/** `openpaw solve`: submits a problem and follows its run's events to the end. */
export const solveVerb: Verb = {
  name: 'solve',
  summary: 'submit a problem (text, image file or URL) and follow it to the solution',
  usage: ['<problem text | image file | http(s) URL> [--intent <name>] [--no-wait] [--confirm-reading]'],
  options: { intent: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'confirm-reading': { type: 'boolean' } },
  needsApi: true,
  async run({ args, options, io, out, api: client, timeoutMs }) {
    const api = await client();
    const startedAt = io.now();
    const intent = typeof options['intent'] === 'string' ? options['intent'] : undefined;
    const { init, label } = await submissionRequest(args, intent, io.cwd, options['confirm-reading'] === true);
    out(`submitting ${label} to ${api.baseUrl}`);
    const { status, body: submitted } = await api.json<ProblemSubmission>('/problems', init);
    const runId = submitted.run_id;
    const note = status === 200 ? ' (answered from an earlier run)' : submitted.attempt_no > 1 ? ` (attempt ${submitted.attempt_no})` : '';
    out(`run ${runId}${note}`);
    const stamp = (): string => `[${((io.now() - startedAt) / 1000).toFixed(1).padStart(5)}s]`;
    const eta = typeof submitted.eta_seconds === 'number' ? `  (eta ~${Math.ceil(submitted.eta_seconds)} s)` : '';
    out(`${stamp()} ${submitted.state}${submitted.terminal ? '' : eta}`);

    let final: RunResource | undefined;
    if (submitted.terminal) final = (await api.json<RunResource>(`/runs/${runId}`)).body;
    else if (options['no-wait'] === true) return { exitCode: EXIT.stillRunning, result: { runId, state: submitted.state, terminal: false } };
    else {
      let shown = `${submitted.attempt_no}:${submitted.state}`;
      final = await followRun(
        api,
        runId,
        {
          timeoutMs,
          attemptNo: submitted.attempt_no,
          onRun: (run) => {
            const key = `${run.attemptNo}:${run.state}`;
            const entered = key !== shown;
            if (entered) out(`${stamp()} ${run.state}`);
            shown = key;
            return entered && run.state === 'AWAITING_READING_CONFIRMATION' ? answerReading(api, run, io, out) : 'continue';
          },
        },
        io,
      );
    }
    if (final === undefined) {
      io.stderr(`still running after ${timeoutMs / 1000} s; see: openpaw status ${runId}`);
      return { exitCode: EXIT.stillRunning, result: { runId, terminal: false } };
    }
    await printSummary(api, final, io, out);
    return { exitCode: exitOfRunState(final.state, final.terminal), result: final };
  },
};
