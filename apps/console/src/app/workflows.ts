/**
 * What the console knows of each workflow to show its runs: a name for people and, where its spec
 * has one main path, the states in order (spec 01 for RetrieveOrGenerate). Every workflow's full
 * state diagram comes from its transition table (`api/workflow-tables.ts`). A workflow the console
 * does not know is still listed and shown, with its raw state names.
 */
export interface WorkflowPresentation {
  readonly type: string;
  readonly title: string;
  /** The states of a run that goes well, in order; a terminal failure is shown beside them. */
  readonly mainPath: readonly string[];
}

export const WORKFLOWS: readonly WorkflowPresentation[] = [
  {
    type: 'retrieve_or_generate',
    title: 'Problem (retrieve or generate)',
    mainPath: ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED'],
  },
  {
    type: 'solve_workflow',
    title: 'Solve (child run)',
    mainPath: [],
  },
  { type: 'artifact_job', title: 'Study artifact job', mainPath: [] },
  { type: 'video_workflow', title: 'Video (background)', mainPath: [] },
  { type: 'reindex_asset', title: 'Reindex asset (background)', mainPath: [] },
  { type: 'research', title: 'Research', mainPath: [] },
  { type: 'paper_search', title: 'Paper search', mainPath: [] },
  { type: 'visual_degrees', title: 'Visual degrees', mainPath: [] },
];

/** The states a run filter offers: spec 01's, then the common terminal ones. */
export const FILTER_STATES = ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

export function workflowTitle(type: string): string {
  return WORKFLOWS.find((workflow) => workflow.type === type)?.title ?? type;
}

/** A state name for people: `GENERATING_SOLUTION` → `Generating solution`. */
export function stateLabel(state: string): string {
  const words = state.toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export type StepStatus = 'done' | 'current' | 'upcoming' | 'skipped';

/**
 * Where a run stands on its workflow's main path, given the states it went through: each state
 * done, current, upcoming, or skipped (RETRIEVING → SUCCEEDED skips generation on a retrieval hit).
 * The first state counts as visited: every run starts there, though its first event may already
 * name the next one (a RetrieveOrGenerate run's first event is INGESTING).
 */
export function mainPathProgress(mainPath: readonly string[], visited: readonly string[], current: string): { state: string; status: StepStatus }[] {
  const seen = new Set([...mainPath.slice(0, 1), ...visited]);
  const currentIndex = mainPath.indexOf(current);
  const lastVisitedIndex = Math.max(currentIndex, ...[...seen].map((state) => mainPath.indexOf(state)));
  return mainPath.map((state, index) => {
    if (state === current) return { state, status: 'current' };
    if (seen.has(state)) return { state, status: 'done' };
    return { state, status: index < lastVisitedIndex ? 'skipped' : 'upcoming' };
  });
}
