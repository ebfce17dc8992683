import type { Verb } from '../verb.js';
import { cancelVerb } from './cancel.js';
import { completionVerb } from './completion.js';
import { degreesVerb } from './degrees.js';
import { keysVerb } from './keys.js';
import { libraryVerb } from './library.js';
import { loginVerb } from './login.js';
import { notebookVerb } from './notebook.js';
import { papersVerb } from './papers.js';
import { researchVerb } from './research.js';
import { runsVerb } from './runs.js';
import { solveVerb } from './solve.js';
import { statusVerb } from './status.js';

/** The workflow and run verbs, in `--help` order. A new verb: one file in this folder, one line here. */
const WORKFLOW_VERBS: readonly Verb[] = [solveVerb, papersVerb, researchVerb, degreesVerb, notebookVerb, libraryVerb, statusVerb, cancelVerb, runsVerb, keysVerb, loginVerb];

const completion = completionVerb(() => ({
  verbs: VERBS.map((verb) => ({ name: verb.name, summary: verb.summary, options: Object.keys(verb.options) })),
}));

export const VERBS: readonly Verb[] = [...WORKFLOW_VERBS, completion];

export function verbNamed(name: string): Verb | undefined {
  return VERBS.find((verb) => verb.name === name);
}
