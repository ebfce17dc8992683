import { startWorkflowWorld } from './testing/workflow-platform.js';
import { libraryAndSettingsPages } from './testing/workflow-pages/library-and-settings.js';
import { operationsPages } from './testing/workflow-pages/operations.js';
import { paperSearchPages } from './testing/workflow-pages/paper-search.js';
import { researchPages } from './testing/workflow-pages/research.js';
import { visualDegreesPage } from './testing/workflow-pages/visual-degrees.js';

/**
 * The workflow pages with people in them, in Chromium against the platform: research with its human
 * gate after a partial failure, paper search's two checkpoints, the settings, the operators' pages,
 * visual degrees' chain growing live. OpenAI is a local server speaking its wire format (a 500 for the
 * failing leg, a 401 for a rejected key); the local researcher succeeds; paper search reads the user's
 * imported BibTeX library; visual degrees runs over the visual-search service's local world.
 *
 * One file, one world: the platform and the browser start once for every page's tests (each concept
 * is its own module under `testing/workflow-pages/`). The order matters: later tests read what earlier ones
 * left (the library imported, the updated key, the user's runs).
 */
describe('the console workflow pages in a real browser (Chromium), against the platform', () => {
  const world = startWorkflowWorld();
  researchPages(world);
  paperSearchPages(world);
  libraryAndSettingsPages(world);
  operationsPages(world);
  visualDegreesPage(world);
});
