import type { OpsInFlight } from '../api/resources.js';
import { workflowTitle } from '../workflows.js';

/** Runs not ended: users' runs by the tier they were admitted under, and every run by workflow. */
export function InFlightRuns({ counts }: { counts: OpsInFlight }) {
  const total = counts.byTier.reduce((sum, row) => sum + row.runs, 0);
  return (
    <section aria-labelledby="in-flight-title">
      <h2 id="in-flight-title">In-flight runs</h2>
      <div class="filters">
        <table class="runs compact" aria-label="In-flight runs by tier">
          <caption>Users’ runs by tier ({total} in all)</caption>
          <thead>
            <tr>
              <th scope="col">Tier</th>
              <th scope="col">Runs</th>
            </tr>
          </thead>
          <tbody>
            {counts.byTier.length === 0 && (
              <tr>
                <td colSpan={2}>none</td>
              </tr>
            )}
            {counts.byTier.map((row) => (
              <tr key={row.tier} data-tier={row.tier}>
                <td>{row.tier}</td>
                <td data-column="runs">{row.runs}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table class="runs compact" aria-label="In-flight runs by workflow">
          <caption>All runs by workflow (children and background too)</caption>
          <thead>
            <tr>
              <th scope="col">Workflow</th>
              <th scope="col">Runs</th>
            </tr>
          </thead>
          <tbody>
            {counts.byWorkflow.length === 0 && (
              <tr>
                <td colSpan={2}>none</td>
              </tr>
            )}
            {counts.byWorkflow.map((row) => (
              <tr key={row.workflowType} data-workflow={row.workflowType}>
                <td>{workflowTitle(row.workflowType)}</td>
                <td data-column="runs">{row.runs}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
