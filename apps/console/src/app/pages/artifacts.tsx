import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';
import { hrefOf } from '../routes.js';

const ARTIFACT_REQUESTS = {
  quiz: 'Create a quiz from my notes',
  flashcards: 'Make flashcards from my notes',
  summary: 'Summarize my notes',
} as const;
type ArtifactKind = keyof typeof ARTIFACT_REQUESTS;

/**
 * Study artifacts (spec 02): add study material to a notebook, then ask for a quiz, flashcards or a
 * summary of it; the job's page follows it.
 */
export function ArtifactsPage() {
  const client = useGatewayClient();
  const [notebookId, setNotebookId] = useState('my-notebook');
  const [material, setMaterial] = useState('');
  const [kind, setKind] = useState<ArtifactKind>('quiz');
  const [problem, setProblem] = useState<string | undefined>();
  const [working, setWorking] = useState<string | undefined>();

  const create = async (): Promise<void> => {
    setProblem(undefined);
    setWorking('Adding the material to the notebook…');
    const source = await client.POST('/notebooks/{notebookId}/sources', { params: { path: { notebookId } }, body: { text: material } });
    if (source.data === undefined || !('source_id' in source.data)) {
      setWorking(undefined);
      setProblem(errorMessage(source.error, `The material was not added (${source.response.status}).`));
      return;
    }
    setWorking('Asking for the artifact…');
    const chat = await client.POST('/ai/chat', { body: { message: ARTIFACT_REQUESTS[kind], session_id: notebookId, source_ids: [source.data.source_id] } });
    setWorking(undefined);
    if (chat.data !== undefined && chat.data.type === 'artifact_job_created') {
      location.hash = hrefOf({ page: 'artifactJob', jobId: chat.data.job_id });
      return;
    }
    setProblem(errorMessage(chat.error, 'No artifact job was created.'));
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Study artifacts</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label for="notebook-id">Notebook</label>
        <input id="notebook-id" name="notebook" required value={notebookId} onInput={(event) => setNotebookId(event.currentTarget.value)} />
        <label for="material">Study material</label>
        <p id="material-hint" class="hint">
          Paste the text to learn from; it is added to the notebook as a source.
        </p>
        <textarea id="material" name="material" rows={8} required aria-describedby="material-hint" value={material} onInput={(event) => setMaterial(event.currentTarget.value)} />
        <fieldset>
          <legend>Artifact</legend>
          {(Object.keys(ARTIFACT_REQUESTS) as ArtifactKind[]).map((option) => (
            <label key={option} class="choice">
              <input type="radio" name="kind" value={option} checked={kind === option} onChange={() => setKind(option)} /> {option}
            </label>
          ))}
        </fieldset>
        {problem !== undefined && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        {working !== undefined && <p role="status">{working}</p>}
        <button type="submit" disabled={working !== undefined || material.trim() === '' || notebookId.trim() === ''}>
          Create
        </button>
      </form>
    </section>
  );
}
