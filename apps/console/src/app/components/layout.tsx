import type { ComponentChildren } from 'preact';
import type { Route } from '../routes.js';

/** The frame of every signed-in page: a skip link, the navigation, and the page as `main`. */
export function Layout({ route, onSignOut, children }: { route: Route; onSignOut: () => void; children: ComponentChildren }) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">OpenPaw console</span>
        <nav aria-label="Main">
          <ul>
            <li>
              <a href="#/problems/new" aria-current={route.page === 'submitProblem' ? 'page' : undefined}>
                Solve a problem
              </a>
            </li>
            <li>
              <a href="#/artifacts" aria-current={route.page === 'artifacts' ? 'page' : undefined}>
                Study artifacts
              </a>
            </li>
            <li>
              <a href="#/runs" aria-current={route.page === 'runs' ? 'page' : undefined}>
                Runs
              </a>
            </li>
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
