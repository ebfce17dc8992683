import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { single, UsageError, type Verb } from '../verb.js';

interface LibraryImport {
  readonly status: string;
  readonly importId: string;
  readonly added?: number;
  readonly updated?: number;
  readonly skipped?: { entry: number; reason: string }[];
}

/** `openpaw library <file>`: imports references (BibTeX or RIS) into the user's library, the `library` search source. */
export const libraryVerb: Verb = {
  name: 'library',
  summary: 'import references (.bib or .ris) into your library, the `library` paper-search source',
  usage: ['<file.bib | file.ris>'],
  options: {},
  needsApi: true,
  async run({ args, io, out, api }) {
    const path = resolve(io.cwd, single(args, 'library <file.bib | file.ris>'));
    const extension = extname(path).toLowerCase();
    const format = extension === '.bib' || extension === '.bibtex' ? 'bibtex' : extension === '.ris' ? 'ris' : undefined;
    if (format === undefined) throw new UsageError('openpaw library: a .bib or .ris file');
    const { body } = await (await api()).post<LibraryImport>('/library/references', { format, content: await readFile(path, 'utf8') });
    if (body.status !== 'imported') {
      out(`import ${body.importId} queued (the research service has not answered yet)`);
      return { exitCode: EXIT.stillRunning, result: body };
    }
    out(`imported ${path}: ${body.added ?? 0} added, ${body.updated ?? 0} updated, ${body.skipped?.length ?? 0} skipped`);
    for (const skipped of body.skipped ?? []) out(`  entry ${skipped.entry}: ${skipped.reason}`);
    return { exitCode: EXIT.succeeded, result: body };
  },
};
