import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';
import { hrefOf } from '../routes.js';

/** Submit a text problem (spec 01); the run's page then follows it live. */
export function SubmitProblemPage() {
  const client = useGatewayClient();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [sending, setSending] = useState(false);

  const submit = async (): Promise<void> => {
    setSending(true);
    setProblem(undefined);
    const { data, error, response } = await client.POST('/problems', { body: { text } });
    setSending(false);
    if (data !== undefined) {
      location.hash = hrefOf({ page: 'run', runId: data.run_id });
      return;
    }
    const retryAfter = response.headers.get('Retry-After');
    setProblem(`${errorMessage(error, `The gateway answered ${response.status}.`)}${retryAfter === null ? '' : ` Try again in ${retryAfter} s.`}`);
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Solve a problem</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label for="problem-text">Problem</label>
        <p id="problem-hint" class="hint">
          Type the problem as text, e.g. <code>Solve 2x + 3 = 7</code>. The same problem is answered from earlier solutions when there is one.
        </p>
        <textarea
          id="problem-text"
          name="text"
          rows={6}
          required
          aria-describedby={problem === undefined ? 'problem-hint' : 'problem-hint submit-problem'}
          aria-invalid={problem !== undefined}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        {problem !== undefined && (
          <p id="submit-problem" class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={sending || text.trim() === ''}>
          {sending ? 'Submitting…' : 'Submit'}
        </button>
      </form>
    </section>
  );
}
