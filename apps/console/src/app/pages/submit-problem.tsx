import { useEffect, useState } from 'preact/hooks';
import type { GatewayClient } from '../api/client.js';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';
import { ImageDrop } from '../components/image-drop.js';
import { hrefOf } from '../routes.js';

type Mode = 'text' | 'image' | 'url';

const MODES: readonly { readonly mode: Mode; readonly label: string }[] = [
  { mode: 'text', label: 'Text' },
  { mode: 'image', label: 'Image' },
  { mode: 'url', label: 'Web address (URL)' },
];

type Submission = { readonly mode: 'text'; readonly text: string } | { readonly mode: 'url'; readonly url: string } | { readonly mode: 'image'; readonly file: File };

/** `POST /problems` as JSON (text, URL) or multipart (the image as `file`), through the generated client. */
async function submitProblem(client: GatewayClient, submission: Submission) {
  switch (submission.mode) {
    case 'text':
      return client.POST('/problems', { body: { text: submission.text } });
    case 'url':
      return client.POST('/problems', { body: { url: submission.url } });
    case 'image': {
      const form = new FormData();
      form.append('file', submission.file);
      // The document types the binary `file` as a string (openapi-typescript's `format: binary`); the
      // serializer sends the form itself, and openapi-fetch lets the browser set its multipart boundary.
      return client.POST('/problems', { body: { file: submission.file.name }, bodySerializer: () => form });
    }
  }
}

/** Submit a problem as text, an image (chosen, dropped or taken with the camera) or a web address (spec 01); the run's page then follows it live. */
export function SubmitProblemPage() {
  const client = useGatewayClient();
  const [mode, setMode] = useState<Mode>('text');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [file, setFile] = useState<File | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  useEffect(() => setProblem(undefined), [mode]);

  const submission: Submission | undefined =
    mode === 'text' ? (text.trim() === '' ? undefined : { mode, text }) : mode === 'url' ? (url.trim() === '' ? undefined : { mode, url: url.trim() }) : file === undefined ? undefined : { mode, file };

  const submit = async (): Promise<void> => {
    if (submission === undefined) return;
    setSending(true);
    setProblem(undefined);
    const { data, error, response } = await submitProblem(client, submission);
    setSending(false);
    if (data !== undefined) {
      location.hash = hrefOf({ page: 'run', runId: data.run_id });
      return;
    }
    const retryAfter = response.headers.get('Retry-After');
    setProblem(`${errorMessage(error, `The gateway answered ${response.status}.`)}${retryAfter === null ? '' : ` Try again in ${retryAfter} s.`}`);
  };

  const describedBy = (hint: string): string => (problem === undefined ? hint : `${hint} submit-problem`);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Solve a problem</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <fieldset>
          <legend>Submit the problem as</legend>
          {MODES.map((choice) => (
            <label class="choice" key={choice.mode}>
              <input type="radio" name="mode" value={choice.mode} checked={mode === choice.mode} onChange={() => setMode(choice.mode)} /> {choice.label}
            </label>
          ))}
        </fieldset>
        {mode === 'text' && (
          <>
            <label for="problem-text">Problem</label>
            <p id="problem-hint" class="hint">
              Type the problem as text, e.g. <code>Solve 2x + 3 = 7</code>. The same problem is answered from earlier solutions when there is one.
            </p>
            <textarea
              id="problem-text"
              name="text"
              rows={6}
              required
              aria-describedby={describedBy('problem-hint')}
              aria-invalid={problem !== undefined}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
            />
          </>
        )}
        {mode === 'url' && (
          <>
            <label for="problem-url">Web address</label>
            <p id="url-hint" class="hint">
              The address of a page or an image showing the problem (<code>https://…</code>).
            </p>
            <input
              id="problem-url"
              name="url"
              type="url"
              required
              class="wide"
              aria-describedby={describedBy('url-hint')}
              aria-invalid={problem !== undefined}
              value={url}
              onInput={(event) => setUrl(event.currentTarget.value)}
            />
          </>
        )}
        {mode === 'image' && <ImageDrop file={file} onFile={setFile} invalid={problem !== undefined} describedBy={problem === undefined ? undefined : 'submit-problem'} />}
        {problem !== undefined && (
          <p id="submit-problem" class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={sending || submission === undefined}>
          {sending ? 'Submitting…' : 'Submit'}
        </button>
      </form>
    </section>
  );
}
