/** The console's pages, addressed by the URL's hash (static files: every deep link loads `index.html`). */
export type Route =
  | { readonly page: 'submitProblem' }
  | { readonly page: 'runs'; readonly type?: string; readonly state?: string }
  | { readonly page: 'run'; readonly runId: string }
  | { readonly page: 'artifacts' }
  | { readonly page: 'artifactJob'; readonly jobId: string }
  | { readonly page: 'notFound'; readonly path: string };

const RUN_PATH = /^\/runs\/([0-9a-f-]{36})$/i;
const ARTIFACT_JOB_PATH = /^\/artifacts\/([0-9a-f-]{36})$/i;

/** The route of a location hash (`#/runs?type=retrieve_or_generate`, `#/runs/<id>`, ...). */
export function routeOf(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  if (path === '' || path === '/' || path === '/problems/new') return { page: 'submitProblem' };
  if (path === '/runs') {
    const type = params.get('type') ?? '';
    const state = params.get('state') ?? '';
    return { page: 'runs', ...(type === '' ? {} : { type }), ...(state === '' ? {} : { state }) };
  }
  if (path === '/artifacts') return { page: 'artifacts' };
  const job = ARTIFACT_JOB_PATH.exec(path);
  if (job?.[1] !== undefined) return { page: 'artifactJob', jobId: job[1].toLowerCase() };
  const run = RUN_PATH.exec(path);
  if (run?.[1] !== undefined) return { page: 'run', runId: run[1].toLowerCase() };
  return { page: 'notFound', path };
}

/** The hash of a route: the inverse of `routeOf`. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'submitProblem':
      return '#/problems/new';
    case 'runs': {
      const params = new URLSearchParams();
      if (route.type !== undefined) params.set('type', route.type);
      if (route.state !== undefined) params.set('state', route.state);
      const query = params.toString();
      return query === '' ? '#/runs' : `#/runs?${query}`;
    }
    case 'run':
      return `#/runs/${route.runId}`;
    case 'artifacts':
      return '#/artifacts';
    case 'artifactJob':
      return `#/artifacts/${route.jobId}`;
    case 'notFound':
      return `#${route.path}`;
  }
}
