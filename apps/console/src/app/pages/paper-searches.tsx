import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type PaperSearch } from '../api/resources.js';
import { LibraryImportForm } from '../components/library-import.js';
import { hrefOf } from '../routes.js';

type Source = PaperSearch['options']['sources'][number];
const SOURCES: readonly Source[] = ['library', 'openalex', 'arxiv', 'crossref', 'semantic_scholar', 'serpapi_scholar'];

/** Spec 04: start a paper search (query, sources, whether to confirm the strategy first); its page holds the two checkpoints. */
export function PaperSearchesPage() {
  const client = useGatewayClient();
  const [query, setQuery] = useState('');
  const [sources, setSources] = useState<readonly Source[]>([]);
  const [strategyCheckpoint, setStrategyCheckpoint] = useState(true);
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const start = async (): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    const { data, error, response } = await client.POST('/paper-searches', {
      body: { query, options: { strategyCheckpoint, autoApprove: false, maxIterations: 5, ...(sources.length === 0 ? {} : { sources: [...sources] }) } },
    });
    setBusy(false);
    if (data !== undefined) location.hash = hrefOf({ page: 'paperSearch', searchId: data.runId });
    else setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Paper search</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <label for="paper-query">What are you looking for?</label>
        <textarea id="paper-query" rows={3} required value={query} onInput={(event) => setQuery(event.currentTarget.value)} />
        <fieldset>
          <legend>Sources (none chosen: the platform's defaults)</legend>
          {SOURCES.map((source) => (
            <label class="choice" key={source}>
              <input
                type="checkbox"
                name="source"
                value={source}
                checked={sources.includes(source)}
                onChange={(event) => setSources(event.currentTarget.checked ? [...sources, source] : sources.filter((other) => other !== source))}
              />{' '}
              {source}
            </label>
          ))}
        </fieldset>
        <label class="choice">
          <input type="checkbox" checked={strategyCheckpoint} onChange={(event) => setStrategyCheckpoint(event.currentTarget.checked)} /> Let me confirm the search
          strategy first
        </label>
        <div>
          <button type="submit" disabled={busy || query.trim() === ''}>
            Start the search
          </button>
        </div>
      </form>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <LibraryImportForm />
    </section>
  );
}
