import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type LibraryImport } from '../api/resources.js';

/** The import format of a reference file, by its name. */
export function libraryFormatOf(fileName: string): 'bibtex' | 'ris' | undefined {
  const name = fileName.toLowerCase();
  if (name.endsWith('.bib') || name.endsWith('.bibtex')) return 'bibtex';
  if (name.endsWith('.ris')) return 'ris';
  return undefined;
}

type Progress = { readonly step: 'reading' | 'importing'; readonly file: string } | { readonly step: 'done'; readonly file: string; readonly result: LibraryImport };

/**
 * Spec 04's library: import a BibTeX or RIS file into the user's references, which the `library`
 * source of paper searches searches. Says each step (reading the file, importing), then what was
 * added, updated and skipped, and why each skipped entry was.
 */
export function LibraryImportForm() {
  const client = useGatewayClient();
  const [file, setFile] = useState<File | undefined>();
  const [progress, setProgress] = useState<Progress | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  const importFile = async (chosen: File): Promise<void> => {
    setProblem(undefined);
    const format = libraryFormatOf(chosen.name);
    if (format === undefined) return setProblem(`${chosen.name}: choose a BibTeX (.bib) or RIS (.ris) file.`);
    setProgress({ step: 'reading', file: chosen.name });
    const content = await chosen.text();
    setProgress({ step: 'importing', file: chosen.name });
    const { data, error, response } = await client.POST('/library/references', { body: { format, content } });
    if (data === undefined) {
      setProgress(undefined);
      return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    }
    setProgress({ step: 'done', file: chosen.name, result: data });
  };

  const busy = progress !== undefined && progress.step !== 'done';
  return (
    <section aria-labelledby="library-title">
      <h2 id="library-title">Your library</h2>
      <p class="hint">Import references from a reference manager (BibTeX or RIS). The "library" source searches them; the same file again updates in place.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (file !== undefined) void importFile(file);
        }}
      >
        <label for="library-file">Reference file (.bib or .ris)</label>
        <input id="library-file" type="file" accept=".bib,.bibtex,.ris" onChange={(event) => setFile(event.currentTarget.files?.[0])} />
        <div>
          <button type="submit" disabled={file === undefined || busy}>
            Import the references
          </button>
        </div>
      </form>
      <div role="status" aria-live="polite" data-import={progress?.step}>
        {progress?.step === 'reading' && <p>Reading {progress.file}…</p>}
        {progress?.step === 'importing' && <p>Importing {progress.file}…</p>}
        {progress?.step === 'done' &&
          (progress.result.status === 'pending' ? (
            <p>{progress.file} is queued: the research service has not answered yet. Its references appear in searches once it has.</p>
          ) : (
            <>
              <p>
                Imported {progress.file}: {progress.result.added ?? 0} added, {progress.result.updated ?? 0} updated, {progress.result.skipped?.length ?? 0} skipped.
              </p>
              {(progress.result.skipped?.length ?? 0) > 0 && (
                <ul>
                  {progress.result.skipped?.map((skipped) => (
                    <li key={skipped.entry}>
                      Entry {skipped.entry}: {skipped.reason}
                    </li>
                  ))}
                </ul>
              )}
            </>
          ))}
      </div>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
