import { openAsBlob } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ApiError } from '../api-client.js';
import { EXIT } from '../exit-codes.js';
import { single, UsageError, type Verb } from '../verb.js';

/** One NDJSON line of `POST /library/references/file`: a part's answer, an entry too large, the totals, or why it stopped. */
interface ImportLine {
  readonly event: 'part' | 'oversized' | 'done' | 'error';
  readonly part?: number;
  readonly bytesRead?: number;
  readonly status?: string;
  readonly added?: number;
  readonly updated?: number;
  readonly line?: number;
  readonly reason?: string;
  readonly parts?: number;
  readonly skipped?: readonly { readonly part?: number; readonly entry?: number; readonly line?: number; readonly reason: string }[];
  readonly pendingParts?: readonly number[];
  readonly message?: string;
}

const MEDIA_TYPES = { bibtex: 'application/x-bibtex', ris: 'application/x-research-info-systems' } as const;

/**
 * `openpaw library <file>`: imports references (BibTeX or RIS, up to 50 MiB) into the user's library,
 * the `library` search source. The file is streamed from disk (never read whole) and imported by the
 * gateway in parts; each part's answer is printed as it comes.
 */
export const libraryVerb: Verb = {
  name: 'library',
  summary: 'import references (.bib or .ris, up to 50 MiB) into your library, the `library` paper-search source',
  usage: ['<file.bib | file.ris>'],
  options: {},
  needsApi: true,
  async run({ args, io, out, api }) {
    const path = resolve(io.cwd, single(args, 'library <file.bib | file.ris>'));
    const extension = extname(path).toLowerCase();
    const format = extension === '.bib' || extension === '.bibtex' ? 'bibtex' : extension === '.ris' ? 'ris' : undefined;
    if (format === undefined) throw new UsageError('openpaw library: a .bib or .ris file');
    const file = await openAsBlob(path);
    // A file-backed Blob: sent with its Content-Length (the gateway refuses an oversized file before reading it), streamed from disk.
    const response = await (await api()).request(`/library/references/file?format=${format}`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES[format] }, body: file });
    if (!response.ok || response.body === null) throw new ApiError(response.status, await response.text().then((text) => parseJson(text) ?? text));
    let done: ImportLine | undefined;
    for await (const line of ndjsonLines(response.body)) {
      switch (line.event) {
        case 'part':
          out(`  part ${line.part ?? '?'} (${percent(line.bytesRead, file.size)}): ${line.status === 'imported' ? `${line.added ?? 0} added, ${line.updated ?? 0} updated` : 'queued'}`);
          break;
        case 'oversized':
          out(`  ${line.reason ?? `entry on line ${line.line ?? '?'} too large`}`);
          break;
        case 'done':
          done = line;
          break;
        case 'error':
          io.stderr(`the import stopped: ${line.message ?? 'unknown error'} (the parts above are imported)`);
          return { exitCode: EXIT.failed, result: line };
      }
    }
    if (done === undefined) throw new ApiError(response.status, 'the import ended without its totals');
    out(`imported ${path}: ${done.added ?? 0} added, ${done.updated ?? 0} updated, ${done.skipped?.length ?? 0} skipped, in ${done.parts ?? 0} part${done.parts === 1 ? '' : 's'}`);
    for (const skipped of done.skipped ?? []) out(`  ${skipped.line === undefined ? `part ${skipped.part ?? '?'}, entry ${skipped.entry ?? '?'}` : `line ${skipped.line}`}: ${skipped.reason}`);
    if (done.status !== 'imported') {
      out(`parts ${(done.pendingParts ?? []).join(', ')} queued (the research service has not answered yet)`);
      return { exitCode: EXIT.stillRunning, result: done };
    }
    return { exitCode: EXIT.succeeded, result: done };
  },
};

function percent(bytesRead: number | undefined, size: number): string {
  return bytesRead === undefined || size === 0 ? '?' : `${Math.min(100, Math.round((100 * bytesRead) / size))} %`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON lines of an NDJSON body, as they arrive. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<ImportLine> {
  let pending = '';
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as ImportLine;
  }
  if (pending.trim() !== '') yield JSON.parse(pending) as ImportLine;
}
