import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type OpsRedriveByFilterResult } from '../api/resources.js';

interface Filter {
  readonly subject?: string;
  readonly reason?: string;
}

const filterOf = (subject: string, reason: string): Filter => ({
  ...(subject.trim() === '' ? {} : { subject: subject.trim() }),
  ...(reason.trim() === '' ? {} : { reason: reason.trim() }),
});

/**
 * Redrive by filter in two steps: a dry run counts what the filter matches, then the operator
 * confirms redriving exactly that filter (changing the filter asks for a new count).
 */
export function RedriveByFilter(props: { readonly onRedriven: () => void }) {
  const client = useGatewayClient();
  const [subject, setSubject] = useState('');
  const [reason, setReason] = useState('');
  const [counted, setCounted] = useState<{ filter: Filter; result: OpsRedriveByFilterResult } | undefined>();
  const [outcome, setOutcome] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const call = async (filter: Filter, dryRun: boolean): Promise<OpsRedriveByFilterResult | undefined> => {
    setBusy(true);
    try {
      const answer = await client.POST('/ops/dead-letters/redrive', { body: { ...filter, dry_run: dryRun } });
      if (answer.data === undefined) {
        setProblem(`${errorMessage(answer.error, 'The redrive was refused.')} (${answer.response.status})`);
        return undefined;
      }
      setProblem(undefined);
      return answer.data;
    } finally {
      setBusy(false);
    }
  };

  const count = async (event: Event): Promise<void> => {
    event.preventDefault();
    setOutcome(undefined);
    const filter = filterOf(subject, reason);
    const result = await call(filter, true);
    setCounted(result === undefined ? undefined : { filter, result });
  };

  const confirm = async (): Promise<void> => {
    if (counted === undefined) return;
    const result = await call(counted.filter, false);
    setCounted(undefined);
    if (result === undefined) return;
    setOutcome(`Redrove ${result.redriven} of ${result.matched} matching dead letters.`);
    props.onRedriven();
  };

  const edited = (set: (value: string) => void) => (event: Event) => {
    set((event.currentTarget as HTMLInputElement).value);
    setCounted(undefined);
  };

  return (
    <form class="redrive-filter" aria-labelledby="redrive-filter-title" onSubmit={(event) => void count(event)}>
      <h3 id="redrive-filter-title">Redrive by filter</h3>
      <label>
        Original subject (wildcards * and &gt; allowed)
        <input name="subject" value={subject} onInput={edited(setSubject)} placeholder="openpaw.cmd.research.>" />
      </label>
      <label>
        Reason contains
        <input name="reason" value={reason} onInput={edited(setReason)} />
      </label>
      <button type="submit" disabled={busy || (subject.trim() === '' && reason.trim() === '')}>
        Count matches
      </button>
      {counted !== undefined && (
        <p role="status" data-dry-run-count={counted.result.matched}>
          {counted.result.matched} dead letter{counted.result.matched === 1 ? '' : 's'} match
          {counted.result.subjects.length > 0 ? ` (${counted.result.subjects.join(', ')})` : ''}.{' '}
          {counted.result.matched > 0 && (
            <button type="button" disabled={busy} onClick={() => void confirm()}>
              Redrive {counted.result.matched}
            </button>
          )}
        </p>
      )}
      {outcome !== undefined && <p role="status">{outcome}</p>}
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
