import type { OpsAudit } from '../api/resources.js';

const ACTION_LABELS: Record<OpsAudit['entries'][number]['action'], string> = {
  redrive_one: 'Redrove one dead letter',
  redrive_by_filter: 'Redrove by filter',
  visual_takedown: 'Took a person down from visual degrees',
};

/** What the target of an action was, in one line (`seq 12 → openpaw.cmd...`, or the filter's fields). */
function targetText(target: Record<string, unknown>): string {
  return Object.entries(target)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

/** The operators' actions, newest first: who, when, what, how many messages. */
export function AuditLog(props: { readonly entries: OpsAudit['entries'] }) {
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      {props.entries.length === 0 ? (
        <p>No operator actions yet.</p>
      ) : (
        <div class="table-scroll">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Messages</th>
              </tr>
            </thead>
            <tbody>
              {props.entries.map((entry) => (
                <tr key={entry.id} data-audit-entry={entry.id}>
                  <td>
                    <time dateTime={entry.occurredAt}>{new Date(entry.occurredAt).toLocaleString()}</time>
                  </td>
                  <td data-column="actor">{entry.actor}</td>
                  <td data-column="action">{ACTION_LABELS[entry.action]}</td>
                  <td>
                    <code>{targetText(entry.target)}</code>
                  </td>
                  <td data-column="affected">{entry.affected}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
