import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';

type ExportFormat = 'bibtex' | 'ris' | 'csl-json';
const FORMATS: readonly { readonly format: ExportFormat; readonly label: string; readonly extension: string }[] = [
  { format: 'bibtex', label: 'BibTeX', extension: 'bib' },
  { format: 'ris', label: 'RIS', extension: 'ris' },
  { format: 'csl-json', label: 'CSL-JSON', extension: 'json' },
];

/** The file name a `Content-Disposition: attachment; filename="..."` header gives, if any. */
export function attachmentName(disposition: string | null): string | undefined {
  return disposition === null ? undefined : (/filename="([^"]+)"/.exec(disposition)?.[1] ?? /filename=([^;\s]+)/.exec(disposition)?.[1]);
}

/**
 * Spec 04's exports of a paper search's collection, as files: BibTeX, RIS and CSL-JSON. The API needs
 * the bearer token, so the file is fetched and handed to the browser as a download (a blob URL).
 */
export function PaperExport({ searchId }: { searchId: string }) {
  const client = useGatewayClient();
  const [problem, setProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState<string | undefined>();

  const download = async (format: ExportFormat, extension: string): Promise<void> => {
    setProblem(undefined);
    const { data, error, response } = await client.GET('/paper-searches/{id}/export', { params: { path: { id: searchId }, query: { format } }, parseAs: 'blob' });
    if (data === undefined) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    const name = attachmentName(response.headers.get('content-disposition')) ?? `paper-search-${searchId}.${extension}`;
    const url = URL.createObjectURL(data);
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setSaved(`Downloaded ${name}.`);
  };

  return (
    <section aria-labelledby="export-title">
      <h2 id="export-title">Export the papers</h2>
      <div class="export-buttons">
        {FORMATS.map(({ format, label, extension }) => (
          <button type="button" class="secondary" key={format} onClick={() => void download(format, extension)}>
            {label}
          </button>
        ))}
      </div>
      {saved !== undefined && <p role="status">{saved}</p>}
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
