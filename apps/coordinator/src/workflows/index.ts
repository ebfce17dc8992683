import { type AnySagaDefinition, SagaRegistry } from '@openpaw/saga';
import { DEFAULT_POLICY_CONFIG, type PolicyConfig, policyConfigFromEnv, PolicyEngine } from './policy/index.js';
import { artifactJobDefinition, type ArtifactJobTimings, artifactJobTimingsFromEnv, DEFAULT_ARTIFACT_JOB_TIMINGS } from './artifact-job/index.js';
import { DEFAULT_PAPER_SEARCH_SETTINGS, paperSearchDefinition, type PaperSearchSettings, paperSearchSettingsFromEnv } from './paper-search/index.js';
import { reindexAssetDefinition } from './reindex-asset/reindex-asset.definition.js';
import { retrieveOrGenerateDefinition } from './retrieve-or-generate/retrieve-or-generate.definition.js';
import { DEFAULT_RESEARCH_TIMINGS, researchDefinition, type ResearchTimings, researchTimingsFromEnv } from './research/index.js';
import { DEFAULT_WORKFLOW_TIMINGS, type WorkflowTimings, workflowTimingsFromEnv } from './shared/timings.js';
import { solveWorkflowDefinition } from './solve/solve-workflow.definition.js';
import { videoWorkflowDefinition } from './video/video-workflow.definition.js';
import { visualDegreesDefinition } from './visual-degrees/visual-degrees.definition.js';

export * from './policy/index.js';
export * from './shared/workflow-types.js';
export { DEFAULT_WORKFLOW_TIMINGS, REINDEX_MAX_ATTEMPTS, RETRIES, workflowTimingsFromEnv, workflowTimingsSchema, type Backoff, type WorkflowTimings } from './shared/timings.js';
export * from './retrieve-or-generate/retrieve-or-generate.definition.js';
export * from './solve/solve-workflow.definition.js';
export * from './video/video-workflow.definition.js';
export * from './reindex-asset/reindex-asset.definition.js';
export * from './paper-search/index.js';
export * from './visual-degrees/visual-degrees.definition.js';
export * from './research/index.js';

export interface WorkflowConfig {
  readonly policy: PolicyConfig;
  readonly timings: WorkflowTimings;
  readonly artifactJobTimings: ArtifactJobTimings;
  /** Spec 04 (paper search); the defaults when absent. */
  readonly paperSearch?: PaperSearchSettings;
  /** Spec 05 (OPENPAW_RESEARCH_TIMINGS_JSON). */
  readonly researchTimings: ResearchTimings;
}

export const DEFAULT_WORKFLOW_CONFIG: WorkflowConfig = {
  policy: DEFAULT_POLICY_CONFIG,
  timings: DEFAULT_WORKFLOW_TIMINGS,
  artifactJobTimings: DEFAULT_ARTIFACT_JOB_TIMINGS,
  researchTimings: DEFAULT_RESEARCH_TIMINGS,
};

/**
 * OPENPAW_POLICY_JSON (+ OPENPAW_LLM_MODEL / OPENPAW_LLM_FALLBACK_MODELS), OPENPAW_WORKFLOW_TIMINGS_JSON and
 * OPENPAW_ARTIFACT_JOB_TIMINGS_JSON; throws when invalid. Read once, at bootstrap, into the coordinator's settings.
 */
export function workflowConfigFromEnv(env: NodeJS.ProcessEnv): WorkflowConfig {
  return {
    policy: policyConfigFromEnv(env),
    timings: workflowTimingsFromEnv(env),
    artifactJobTimings: artifactJobTimingsFromEnv(env),
    paperSearch: paperSearchSettingsFromEnv(env),
    researchTimings: researchTimingsFromEnv(env),
  };
}

/** Spec 01's four workflows, built from one config. */
export function createWorkflowDefinitions(config: Pick<WorkflowConfig, 'policy' | 'timings'> = DEFAULT_WORKFLOW_CONFIG): readonly AnySagaDefinition[] {
  return [
    retrieveOrGenerateDefinition(config),
    solveWorkflowDefinition(config.timings),
    videoWorkflowDefinition(config.timings),
    reindexAssetDefinition(config.timings),
  ];
}

/** Every workflow the coordinator runs (spec 01 and spec 02 so far), from its settings. */
export function productionRegistry(config: WorkflowConfig = DEFAULT_WORKFLOW_CONFIG): SagaRegistry {
  return new SagaRegistry([
    ...createWorkflowDefinitions(config),
    artifactJobDefinition(config.artifactJobTimings),
    paperSearchDefinition(config.paperSearch ?? DEFAULT_PAPER_SEARCH_SETTINGS),
    // Spec 03.
    visualDegreesDefinition(),
    // Spec 05.
    researchDefinition(config.researchTimings, new PolicyEngine(config.policy)),
  ]);
}
