import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type RunSummary } from '../api/resources.js';
import { SavedViews } from '../components/saved-views.js';
import { StateBadge } from '../components/state-badge.js';
import { hrefOf, type RunsFilterParams } from '../routes.js';
import { storedToken, tokenRoles } from '../session.js';
import { FILTER_STATES, stateLabel, WORKFLOWS, workflowTitle } from '../workflows.js';

const PAGE_SIZE = 20;

export type RunsFilter = RunsFilterParams;

/** A date input's day (local time) as the instant it starts; `to` is exclusive, so it is the day after the chosen one. */
function startOfDay(day: string, plusDays = 0): string {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year ?? 1970, (month ?? 1) - 1, (date ?? 1) + plusDays).toISOString();
}

/** The list query of a filter: the URL's dates as instants, empty fields left out. */
function listQueryOf(filter: RunsFilter) {
  return {
    ...(filter.type === undefined ? {} : { type: filter.type }),
    ...(filter.state === undefined ? {} : { state: filter.state }),
    ...(filter.from === undefined ? {} : { from: startOfDay(filter.from) }),
    ...(filter.to === undefined ? {} : { to: startOfDay(filter.to, 1) }),
    ...(filter.q === undefined ? {} : { q: filter.q }),
    ...(filter.user === undefined ? {} : { user: filter.user }),
  };
}

/**
 * The caller's runs, newest first, filtered by type, state, creation day range and run id (and, for
 * admins, by user or everyone's); the filter lives in the URL, so a view can be bookmarked.
 */
export function RunsPage({ filter }: { filter: RunsFilter }) {
  const client = useGatewayClient();
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [nextCursor, setNextCursor] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  const isAdmin = tokenRoles(storedToken()).includes('admin');

  const load = async (cursor: string | undefined): Promise<void> => {
    setLoading(true);
    const { data, error } = await client.GET('/runs', {
      params: { query: { limit: PAGE_SIZE, ...listQueryOf(filter), ...(cursor === undefined ? {} : { cursor }) } },
    });
    setLoading(false);
    if (data === undefined) {
      setProblem(errorMessage(error, 'The runs could not be read.'));
      return;
    }
    setProblem(undefined);
    setRuns((previous) => (cursor === undefined ? data.items : [...previous, ...data.items]));
    setNextCursor(data.nextCursor);
  };

  useEffect(() => {
    void load(undefined);
    // A new filter is a new list.
  }, [filter.type, filter.state, filter.from, filter.to, filter.q, filter.user]);

  const applyFilter = (next: RunsFilter): void => {
    location.hash = hrefOf({ page: 'runs', ...next });
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Runs</h1>
      <form
        class="filters"
        aria-label="Filter runs"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const text = (name: string): string | undefined => {
            const value = form.get(name);
            return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
          };
          applyFilter({ type: filter.type, state: filter.state, from: text('from'), to: text('to'), q: text('q')?.toLowerCase(), user: text('user') });
        }}
      >
        <div class="field">
          <label for="filter-type">Workflow</label>
          <select
            id="filter-type"
            value={filter.type ?? ''}
            onChange={(event) => applyFilter({ ...filter, type: event.currentTarget.value || undefined })}
          >
            <option value="">All workflows</option>
            {WORKFLOWS.map((workflow) => (
              <option key={workflow.type} value={workflow.type}>
                {workflow.title}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-state">State</label>
          <select
            id="filter-state"
            value={filter.state ?? ''}
            onChange={(event) => applyFilter({ ...filter, state: event.currentTarget.value || undefined })}
          >
            <option value="">Any state</option>
            {FILTER_STATES.map((state) => (
              <option key={state} value={state}>
                {stateLabel(state)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-from">Started on or after</label>
          <input id="filter-from" name="from" type="date" value={filter.from ?? ''} />
        </div>
        <div class="field">
          <label for="filter-to">Started on or before</label>
          <input id="filter-to" name="to" type="date" value={filter.to ?? ''} />
        </div>
        <div class="field">
          <label for="filter-q">Run id (or its beginning)</label>
          <input id="filter-q" name="q" value={filter.q ?? ''} pattern="[0-9a-fA-F\-]{1,36}" spellcheck={false} />
        </div>
        {isAdmin && (
          <div class="field">
            <label for="filter-user">User (admins; * for everyone)</label>
            <input id="filter-user" name="user" value={filter.user ?? ''} />
          </div>
        )}
        <button type="submit">Apply filters</button>
      </form>
      <SavedViews current={filter} />
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <p class="sr-status" role="status">
        {loading ? 'Loading runs…' : `${runs.length} run${runs.length === 1 ? '' : 's'} shown.`}
      </p>
      {runs.length > 0 && (
        <table class="runs">
          <caption class="visually-hidden">{filter.user === undefined ? 'Your runs' : filter.user === '*' ? "Everyone's runs" : `Runs of ${filter.user}`}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Workflow</th>
              <th scope="col">State</th>
              <th scope="col">Started</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.runId}>
                <td>
                  <a href={hrefOf({ page: 'run', runId: run.runId })}>
                    <code>{run.runId.slice(0, 8)}</code>
                    <span class="visually-hidden"> (run {run.runId})</span>
                  </a>
                </td>
                <td>{workflowTitle(run.workflowType)}</td>
                <td>
                  <StateBadge state={run.state} terminal={run.terminal} />
                </td>
                <td>
                  <time dateTime={run.createdAt}>{new Date(run.createdAt).toLocaleString()}</time>
                </td>
                <td>
                  <time dateTime={run.updatedAt}>{new Date(run.updatedAt).toLocaleString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor !== undefined && (
        <button type="button" class="secondary" disabled={loading} onClick={() => void load(nextCursor)}>
          Load more
        </button>
      )}
    </section>
  );
}
