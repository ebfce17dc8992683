/** Workflow type names (the `workflow_type` of runs and step logs). Changing one orphans existing runs. */
export const RETRIEVE_OR_GENERATE = 'retrieve_or_generate';
export const SOLVE_WORKFLOW = 'solve_workflow';
export const VIDEO_WORKFLOW = 'video_workflow';
/** The spec's `admin.ReindexAsset` background run. */
export const REINDEX_ASSET = 'reindex_asset';
