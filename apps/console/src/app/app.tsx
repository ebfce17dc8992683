import { useEffect, useMemo, useState } from 'preact/hooks';
import { createGatewayClient } from './api/client.js';
import { GatewayClientContext } from './api/context.js';
import { Layout } from './components/layout.js';
import { ArtifactJobPage } from './pages/artifact-job.js';
import { ArtifactsPage } from './pages/artifacts.js';
import { OpsPage } from './pages/ops.js';
import { PaperSearchPage } from './pages/paper-search.js';
import { PaperSearchesPage } from './pages/paper-searches.js';
import { ResearchPage } from './pages/research.js';
import { ResearchRunPage } from './pages/research-run.js';
import { RunDetailPage } from './pages/run-detail.js';
import { RunsPage } from './pages/runs.js';
import { SettingsPage } from './pages/settings.js';
import { SignInPage } from './pages/sign-in.js';
import { SubmitProblemPage } from './pages/submit-problem.js';
import { VisualDegreesPage } from './pages/visual-degrees.js';
import { VisualDegreesRunPage } from './pages/visual-degrees-run.js';
import { hrefOf, type Route, routeOf } from './routes.js';
import { forgetToken, storedToken, storeToken } from './session.js';

const PAGE_TITLES: Record<Route['page'], string> = {
  submitProblem: 'Solve a problem',
  runs: 'Runs',
  run: 'Run',
  artifacts: 'Study artifacts',
  artifactJob: 'Artifact job',
  research: 'Research',
  researchRun: 'Research',
  paperSearches: 'Paper search',
  paperSearch: 'Paper search',
  visualDegrees: 'Visual degrees',
  visualDegreesRun: 'Visual degrees',
  ops: 'Operations',
  settings: 'Research settings',
  notFound: 'Not found',
};

function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'submitProblem':
      return <SubmitProblemPage />;
    case 'runs':
      return <RunsPage filter={route} />;
    case 'run':
      return <RunDetailPage runId={route.runId} />;
    case 'artifacts':
      return <ArtifactsPage />;
    case 'artifactJob':
      return <ArtifactJobPage jobId={route.jobId} />;
    case 'research':
      return <ResearchPage />;
    case 'researchRun':
      return <ResearchRunPage researchId={route.researchId} />;
    case 'paperSearches':
      return <PaperSearchesPage />;
    case 'paperSearch':
      return <PaperSearchPage searchId={route.searchId} />;
    case 'visualDegrees':
      return <VisualDegreesPage />;
    case 'visualDegreesRun':
      return <VisualDegreesRunPage runId={route.runId} />;
    case 'ops':
      return <OpsPage />;
    case 'settings':
      return <SettingsPage />;
    case 'notFound':
      return (
        <section aria-labelledby="page-title">
          <h1 id="page-title">Page not found</h1>
          <p>
            There is no page at <code>{hrefOf(route).slice(1)}</code>. <a href="#/runs">See your runs</a>.
          </p>
        </section>
      );
  }
}

/** The console: the sign-in page until there is a token, then the pages of the signed-in session. */
export function App() {
  const [token, setToken] = useState(storedToken);
  const [expired, setExpired] = useState(false);
  const route = useRoute();
  const client = useMemo(
    () =>
      createGatewayClient({
        baseUrl: location.origin,
        token: () => token,
        onUnauthorized: () => {
          forgetToken();
          setExpired(true);
          setToken(undefined);
        },
      }),
    [token],
  );
  useEffect(() => {
    const title = PAGE_TITLES[route.page];
    document.title = `${token === undefined ? 'Sign in' : title} · OpenPaw console`;
  }, [route, token]);

  if (token === undefined) {
    return (
      <SignInPage
        expired={expired}
        onSignedIn={(signedIn) => {
          storeToken(signedIn);
          setExpired(false);
          setToken(signedIn);
        }}
      />
    );
  }
  return (
    <GatewayClientContext.Provider value={client}>
      <Layout
        route={route}
        onSignOut={() => {
          forgetToken();
          setToken(undefined);
        }}
      >
        <Page route={route} />
      </Layout>
    </GatewayClientContext.Provider>
  );
}
