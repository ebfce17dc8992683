import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type SavedRunView } from '../api/resources.js';
import { hrefOf, RUNS_FILTER_KEYS, type RunsFilterParams } from '../routes.js';

/** The filter's fields that are set, in one line (`state: FAILED, from: 2026-11-01`). */
function filterText(filter: RunsFilterParams): string {
  const parts = RUNS_FILTER_KEYS.flatMap((key) => (filter[key] === undefined ? [] : [`${key}: ${filter[key]}`]));
  return parts.length === 0 ? 'no filter' : parts.join(', ');
}

/** Only the filter's fields (the route around it carries more, such as its page). */
function filterOf(route: RunsFilterParams): RunsFilterParams {
  return Object.fromEntries(RUNS_FILTER_KEYS.flatMap((key) => (route[key] === undefined ? [] : [[key, route[key]]])));
}

/**
 * The caller's saved views of the runs list (kept by the gateway, per user): apply one (a link to its
 * filters), delete one, or save the current filters under a name.
 */
export function SavedViews({ current }: { current: RunsFilterParams }) {
  const client = useGatewayClient();
  const [views, setViews] = useState<SavedRunView[] | undefined>();
  const [limit, setLimit] = useState<number | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [status, setStatus] = useState('');

  const reload = async (): Promise<void> => {
    const { data, error } = await client.GET('/run-views');
    if (data === undefined) {
      setProblem(errorMessage(error, 'The saved views could not be read.'));
      return;
    }
    setViews(data.views);
    setLimit(data.limit);
  };
  useEffect(() => void reload(), []);

  const save = async (name: string): Promise<boolean> => {
    const { data, error } = await client.POST('/run-views', { body: { name, filter: filterOf(current) } });
    if (data === undefined) {
      setProblem(errorMessage(error, 'The view could not be saved.'));
      return false;
    }
    setProblem(undefined);
    setStatus(`Saved the view “${data.name}”.`);
    await reload();
    return true;
  };

  const remove = async (name: string): Promise<void> => {
    const { error, response } = await client.DELETE('/run-views/{name}', { params: { path: { name } } });
    if (!response.ok) {
      setProblem(errorMessage(error, 'The view could not be deleted.'));
      return;
    }
    setProblem(undefined);
    setStatus(`Deleted the view “${name}”.`);
    await reload();
  };

  return (
    <section aria-labelledby="saved-views-title" class="saved-views">
      <h2 id="saved-views-title">Saved views</h2>
      {views !== undefined && views.length === 0 && <p class="hint">None yet: set filters, then save them under a name.</p>}
      {views !== undefined && views.length > 0 && (
        <ul>
          {views.map((view) => (
            <li key={view.name} data-saved-view={view.name}>
              <a href={hrefOf({ page: 'runs', ...view.filter })} title={filterText(view.filter)}>
                {view.name}
              </a>{' '}
              <span class="hint">({filterText(view.filter)})</span>{' '}
              <button type="button" class="secondary small" aria-label={`Delete the view ${view.name}`} onClick={() => void remove(view.name)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="save-view"
        aria-label="Save the current filters as a view"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const name = new FormData(form).get('name');
          if (typeof name === 'string') void save(name).then((saved) => saved && form.reset());
        }}
      >
        <label for="view-name">View name</label>
        <input id="view-name" name="name" maxLength={60} required aria-describedby={limit === undefined ? undefined : 'view-limit'} />
        <button type="submit" class="secondary">
          Save view
        </button>
        {limit !== undefined && (
          <p id="view-limit" class="hint">
            Up to {limit} views.
          </p>
        )}
      </form>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <p class="visually-hidden" role="status">
        {status}
      </p>
    </section>
  );
}
