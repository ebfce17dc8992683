/**
 * Workflow type names: the `workflow_type` of runs, step logs, `StartRun` and `RunStateChanged`.
 * FROZEN: changing one orphans existing runs. Defined once, here, for the coordinator that registers
 * the definitions and the gateway (and other teams) that start and read them.
 */
/** Its run view: `retrieveOrGenerateView` (written) and `retrieveOrGenerateResult` (read), in `views/`. */
export const RETRIEVE_OR_GENERATE = 'retrieve_or_generate';
export const SOLVE_WORKFLOW = 'solve_workflow';
export const VIDEO_WORKFLOW = 'video_workflow';
/** The spec's `admin.ReindexAsset` background run. */
export const REINDEX_ASSET = 'reindex_asset';
/** Spec 04: paper search with two human checkpoints (issue 13). */
export const PAPER_SEARCH = 'paper_search';
/** Spec 03: an evidence-verified visual chain between two persons. */
/** Its run view: `visualDegreesView`, in `views/`. */
export const VISUAL_DEGREES = 'visual_degrees';
