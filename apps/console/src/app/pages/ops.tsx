import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type OpsAudit, type OpsDeadLetters, type OpsInFlight, type OpsLanes } from '../api/resources.js';
import { AuditLog } from '../components/audit-log.js';
import { InFlightRuns } from '../components/in-flight-runs.js';
import { RedriveByFilter } from '../components/redrive-by-filter.js';
import { RedriveOne } from '../components/redrive-one.js';

/** How often the page reads the lanes and dead letters again while open. */
const REFRESH_MS = 5000;

/**
 * Operations (admin role): every lane's backlog and in-flight count, and the newest dead letters
 * with their reason and redacted payload, redriven one at a time or by filter (after a dry-run
 * count). A token without the role gets the gateway's 403 message.
 */
export function OpsPage() {
  const client = useGatewayClient();
  const [lanes, setLanes] = useState<OpsLanes['lanes'] | undefined>();
  const [deadLetters, setDeadLetters] = useState<OpsDeadLetters | undefined>();
  const [audit, setAudit] = useState<OpsAudit['entries'] | undefined>();
  const [inFlight, setInFlight] = useState<OpsInFlight | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  // Bumped after a redrive, so the lists are read again at once rather than at the next tick.
  const [generation, setGeneration] = useState(0);
  const reread = (): void => setGeneration((current) => current + 1);

  useEffect(() => {
    const abort = new AbortController();
    const read = async (): Promise<void> => {
      const [lanesAnswer, lettersAnswer, auditAnswer, inFlightAnswer] = await Promise.all([
        client.GET('/ops/lanes', { signal: abort.signal }),
        client.GET('/ops/dead-letters', { params: { query: { limit: 50 } }, signal: abort.signal }),
        client.GET('/ops/audit', { params: { query: { limit: 50 } }, signal: abort.signal }),
        client.GET('/ops/in-flight', { signal: abort.signal }),
      ]);
      if (lanesAnswer.data === undefined || lettersAnswer.data === undefined || auditAnswer.data === undefined || inFlightAnswer.data === undefined) {
        const failed = [lanesAnswer, lettersAnswer, auditAnswer, inFlightAnswer].find((answer) => answer.data === undefined) ?? lanesAnswer;
        setProblem(`${errorMessage(failed.error, 'The operations API refused.')} (${failed.response.status})`);
        return;
      }
      setProblem(undefined);
      setLanes(lanesAnswer.data.lanes);
      setDeadLetters(lettersAnswer.data);
      setAudit(auditAnswer.data.entries);
      setInFlight(inFlightAnswer.data);
    };
    void read().catch(() => undefined);
    const timer = setInterval(() => void read().catch(() => undefined), REFRESH_MS);
    return () => {
      clearInterval(timer);
      abort.abort();
    };
  }, [client, generation]);

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Operations</h1>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {inFlight !== undefined && <InFlightRuns counts={inFlight} />}
      {lanes !== undefined && (
        <section aria-labelledby="lanes-title">
          <h2 id="lanes-title">Lanes</h2>
          <div class="table-scroll">
            <table class="runs">
              <thead>
                <tr>
                  <th scope="col">Consumer</th>
                  <th scope="col">Stream</th>
                  <th scope="col">Backlog</th>
                  <th scope="col">In flight</th>
                  <th scope="col">Redelivered</th>
                  <th scope="col">Last delivery</th>
                </tr>
              </thead>
              <tbody>
                {lanes.map((lane) => (
                  <tr key={`${lane.stream}/${lane.consumer}`} data-lane={lane.consumer}>
                    <td>
                      <code>{lane.consumer}</code>
                    </td>
                    <td>{lane.stream}</td>
                    <td data-column="pending">{lane.pending}</td>
                    <td data-column="ack-pending">
                      {lane.ackPending}
                      {lane.maxAckPending === null ? '' : ` / ${lane.maxAckPending}`}
                    </td>
                    <td>{lane.redelivered}</td>
                    <td>{lane.lastActive === null ? 'never' : <time dateTime={lane.lastActive}>{new Date(lane.lastActive).toLocaleTimeString()}</time>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {deadLetters !== undefined && (
        <section aria-labelledby="dlq-title">
          <h2 id="dlq-title">Dead letters</h2>
          <p role="status">
            {deadLetters.deadLetters.length} of {deadLetters.total} shown, newest first. Payload values are redacted.
          </p>
          {notice !== undefined && <p role="status">{notice}</p>}
          <RedriveByFilter onRedriven={reread} />
          <ul class="evidence-cards">
            {deadLetters.deadLetters.map((letter) => (
              <li key={letter.seq} class="evidence-card" data-dead-letter={letter.seq}>
                <strong>{letter.originalSubject ?? letter.subject}</strong>
                <dl class="run-facts">
                  <dt>Reason</dt>
                  <dd data-column="reason">{letter.reason ?? 'not recorded'}</dd>
                  <dt>Consumer</dt>
                  <dd>{letter.consumer === null ? 'unknown' : `${letter.consumer} (${letter.originalStream ?? '?'})`}</dd>
                  <dt>Deliveries</dt>
                  <dd>{letter.deliveries ?? 'unknown'}</dd>
                  <dt>Dead-lettered</dt>
                  <dd>
                    <time dateTime={letter.receivedAt}>{new Date(letter.receivedAt).toLocaleString()}</time>
                  </dd>
                </dl>
                <RedriveOne
                  seq={letter.seq}
                  onRedriven={() => {
                    setNotice(`Dead letter ${letter.seq} redriven to ${letter.originalSubject ?? letter.subject}.`);
                    reread();
                  }}
                />
                <details>
                  <summary>Payload ({letter.bytes} bytes, redacted)</summary>
                  <pre class="view">{JSON.stringify(letter.payload, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
        </section>
      )}
      {audit !== undefined && <AuditLog entries={audit} />}
    </section>
  );
}
