/** The console's pages, addressed by the URL's hash (static files: every deep link loads `index.html`). */
export type Route =
  | { readonly page: 'submitProblem' }
  | ({ readonly page: 'runs' } & RunsFilterParams)
  | { readonly page: 'run'; readonly runId: string }
  | { readonly page: 'artifacts' }
  | { readonly page: 'artifactJob'; readonly jobId: string }
  | { readonly page: 'research' }
  | { readonly page: 'researchRun'; readonly researchId: string }
  | { readonly page: 'paperSearches' }
  | { readonly page: 'paperSearch'; readonly searchId: string }
  | { readonly page: 'visualDegrees' }
  | { readonly page: 'visualDegreesRun'; readonly runId: string }
  | { readonly page: 'ops' }
  | { readonly page: 'settings' }
  | { readonly page: 'notFound'; readonly path: string };

/** The runs list's filters, as the URL carries them (a bookmarkable view). `from`/`to` are dates (YYYY-MM-DD). */
export const RUNS_FILTER_KEYS = ['type', 'state', 'from', 'to', 'q', 'user'] as const;
export type RunsFilterParams = { readonly [K in (typeof RUNS_FILTER_KEYS)[number]]?: string };

const RUN_PATH = /^\/runs\/([0-9a-f-]{36})$/i;
const ARTIFACT_JOB_PATH = /^\/artifacts\/([0-9a-f-]{36})$/i;
const RESEARCH_PATH = /^\/research\/([0-9a-f-]{36})$/i;
const PAPER_SEARCH_PATH = /^\/paper-searches\/([0-9a-f-]{36})$/i;
const VISUAL_DEGREES_PATH = /^\/visual-degrees\/([0-9a-f-]{36})$/i;

/** The route of a location hash (`#/runs?type=retrieve_or_generate`, `#/runs/<id>`, ...). */
export function routeOf(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  if (path === '' || path === '/' || path === '/problems/new') return { page: 'submitProblem' };
  if (path === '/runs') {
    const filter: Record<string, string> = {};
    for (const key of RUNS_FILTER_KEYS) {
      const value = params.get(key) ?? '';
      if (value !== '') filter[key] = value;
    }
    return { page: 'runs', ...filter };
  }
  if (path === '/artifacts') return { page: 'artifacts' };
  if (path === '/research') return { page: 'research' };
  if (path === '/paper-searches') return { page: 'paperSearches' };
  if (path === '/visual-degrees') return { page: 'visualDegrees' };
  if (path === '/ops') return { page: 'ops' };
  if (path === '/settings') return { page: 'settings' };
  const research = RESEARCH_PATH.exec(path);
  if (research?.[1] !== undefined) return { page: 'researchRun', researchId: research[1].toLowerCase() };
  const paperSearch = PAPER_SEARCH_PATH.exec(path);
  if (paperSearch?.[1] !== undefined) return { page: 'paperSearch', searchId: paperSearch[1].toLowerCase() };
  const visualDegrees = VISUAL_DEGREES_PATH.exec(path);
  if (visualDegrees?.[1] !== undefined) return { page: 'visualDegreesRun', runId: visualDegrees[1].toLowerCase() };
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
      for (const key of RUNS_FILTER_KEYS) {
        const value = route[key];
        if (value !== undefined) params.set(key, value);
      }
      const query = params.toString();
      return query === '' ? '#/runs' : `#/runs?${query}`;
    }
    case 'run':
      return `#/runs/${route.runId}`;
    case 'artifacts':
      return '#/artifacts';
    case 'artifactJob':
      return `#/artifacts/${route.jobId}`;
    case 'research':
      return '#/research';
    case 'researchRun':
      return `#/research/${route.researchId}`;
    case 'paperSearches':
      return '#/paper-searches';
    case 'paperSearch':
      return `#/paper-searches/${route.searchId}`;
    case 'visualDegrees':
      return '#/visual-degrees';
    case 'visualDegreesRun':
      return `#/visual-degrees/${route.runId}`;
    case 'ops':
      return '#/ops';
    case 'settings':
      return '#/settings';
    case 'notFound':
      return `#${route.path}`;
  }
}
