/** Workflow type names live in the contracts (one definition for every party); re-exported for the workflows here. */
export { REINDEX_ASSET, RETRIEVE_OR_GENERATE, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '@openpaw/contracts';
