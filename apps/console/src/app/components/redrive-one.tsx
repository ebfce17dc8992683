import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';

/** Redrives one dead letter back to its original subject; says where it went, or why not. */
export function RedriveOne(props: { readonly seq: number; readonly onRedriven: () => void }) {
  const client = useGatewayClient();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();

  const redrive = async (): Promise<void> => {
    setBusy(true);
    try {
      const answer = await client.POST('/ops/dead-letters/{seq}/redrive', { params: { path: { seq: props.seq } } });
      if (answer.data === undefined) {
        setProblem(`${errorMessage(answer.error, 'The redrive was refused.')} (${answer.response.status})`);
        return;
      }
      props.onRedriven();
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" disabled={busy} onClick={() => void redrive()} aria-label={`Redrive dead letter ${props.seq}`}>
        Redrive
      </button>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
