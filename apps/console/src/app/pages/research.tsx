import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type ResearchDraft, type ResearchProvider } from '../api/resources.js';
import { hrefOf } from '../routes.js';

const PROVIDERS: readonly ResearchProvider[] = ['openai', 'anthropic', 'gemini', 'local'];

/**
 * Spec 05, phase 1: write a research prompt and create a draft (the gateway fills the title and the
 * providers the caller has keys for), check it, then start it; the research page follows its legs.
 */
export function ResearchPage() {
  const client = useGatewayClient();
  const [prompt, setPrompt] = useState('');
  const [title, setTitle] = useState('');
  const [chosen, setChosen] = useState<readonly ResearchProvider[]>([]);
  const [draft, setDraft] = useState<ResearchDraft | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const createDraft = async (): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    const { data, error, response } = await client.POST('/research/draft', {
      body: { prompt, ...(title.trim() === '' ? {} : { title: title.trim() }), ...(chosen.length === 0 ? {} : { selectedLlms: [...chosen] }) },
    });
    setBusy(false);
    if (data !== undefined) setDraft(data);
    else setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
  };

  const start = async (draftId: string): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    const { data, error, response } = await client.POST('/research', { body: { draftId } });
    setBusy(false);
    if (data !== undefined) location.hash = hrefOf({ page: 'researchRun', researchId: data.id });
    else setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Research</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void createDraft();
        }}
      >
        <label for="research-prompt">Question</label>
        <p id="research-hint" class="hint">
          What to research; each chosen model writes a report, then one synthesis cites them.
        </p>
        <textarea id="research-prompt" rows={4} required aria-describedby="research-hint" value={prompt} onInput={(event) => setPrompt(event.currentTarget.value)} />
        <label for="research-title">Title (optional)</label>
        <input id="research-title" class="wide" value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
        <fieldset>
          <legend>Models (none chosen: every one you have a key for, and the local one)</legend>
          {PROVIDERS.map((provider) => (
            <label class="choice" key={provider}>
              <input
                type="checkbox"
                name="provider"
                value={provider}
                checked={chosen.includes(provider)}
                onChange={(event) => setChosen(event.currentTarget.checked ? [...chosen, provider] : chosen.filter((other) => other !== provider))}
              />{' '}
              {provider}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy || prompt.trim() === ''}>
          Create draft
        </button>
      </form>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {draft !== undefined && (
        <section aria-labelledby="draft-title" class="draft">
          <h2 id="draft-title">Draft: {draft.title}</h2>
          <dl class="run-facts">
            <dt>Models</dt>
            <dd>{draft.selectedLlms.join(', ')}</dd>
            <dt>Synthesis by</dt>
            <dd>{draft.synthesisLlm}</dd>
          </dl>
          <button type="button" disabled={busy} onClick={() => void start(draft.id)}>
            Start research
          </button>
        </section>
      )}
    </section>
  );
}
