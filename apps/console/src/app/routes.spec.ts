import { hrefOf, routeOf } from './routes.js';

describe('console routes', () => {
  it('given each page, when its href is read back, then the same route comes out', () => {
    const routes = [
      { page: 'submitProblem' },
      { page: 'runs' },
      { page: 'runs', type: 'retrieve_or_generate', state: 'FAILED' },
      { page: 'runs', from: '2026-11-01', to: '2026-11-24', q: '3f2a', user: '*' },
      { page: 'run', runId: '0b6f0d8e-6c4a-4e8e-9d2a-2f1d7f3b9a10' },
      { page: 'artifacts' },
      { page: 'artifactJob', jobId: '0b6f0d8e-6c4a-4e8e-9d2a-2f1d7f3b9a10' },
      { page: 'research' },
      { page: 'researchRun', researchId: '0b6f0d8e-6c4a-4e8e-9d2a-2f1d7f3b9a10' },
      { page: 'paperSearches' },
      { page: 'paperSearch', searchId: '0b6f0d8e-6c4a-4e8e-9d2a-2f1d7f3b9a10' },
      { page: 'visualDegrees' },
      { page: 'visualDegreesRun', runId: '0b6f0d8e-6c4a-4e8e-9d2a-2f1d7f3b9a10' },
      { page: 'ops' },
      { page: 'settings' },
    ] as const;
    for (const route of routes) expect(routeOf(hrefOf(route))).toEqual(route);
  });

  it('given an empty hash, then the problem form; given an unknown path, then not found', () => {
    expect(routeOf('')).toEqual({ page: 'submitProblem' });
    expect(routeOf('#/nowhere')).toEqual({ page: 'notFound', path: '/nowhere' });
  });
});
