import type { ComponentChildren } from 'preact';
import type { Route } from '../routes.js';

const NAVIGATION: readonly { readonly href: string; readonly label: string; readonly pages: readonly Route['page'][] }[] = [
  { href: '#/problems/new', label: 'Solve a problem', pages: ['submitProblem'] },
  { href: '#/artifacts', label: 'Study artifacts', pages: ['artifacts', 'artifactJob'] },
  { href: '#/research', label: 'Research', pages: ['research', 'researchRun'] },
  { href: '#/paper-searches', label: 'Paper search', pages: ['paperSearches', 'paperSearch'] },
  { href: '#/visual-degrees', label: 'Visual degrees', pages: ['visualDegrees', 'visualDegreesRun'] },
  { href: '#/runs', label: 'Runs', pages: ['runs', 'run'] },
  { href: '#/settings', label: 'Settings', pages: ['settings'] },
  { href: '#/ops', label: 'Operations', pages: ['ops'] },
];

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
            {NAVIGATION.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.pages.includes(route.page) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
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
