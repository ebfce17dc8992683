import { ARTIFACT_JOB_WORKFLOW, PAPER_SEARCH, RESEARCH_WORKFLOW, VISUAL_DEGREES } from '@openpaw/contracts';
import { SagaRegistry } from '@openpaw/saga';
import { createWorkflowDefinitions, productionRegistry, REINDEX_ASSET, RETRIEVE_OR_GENERATE, SOLVE_WORKFLOW, VIDEO_WORKFLOW, workflowConfigFromEnv } from './index.js';

describe('the coordinator workflows', () => {
  it("registers spec 01's four workflows, spec 02's artifact job, spec 04's paper search, spec 03's visual degrees and spec 05's research in the production registry", () => {
    expect(productionRegistry().all().map((d) => d.type)).toEqual([RETRIEVE_OR_GENERATE, SOLVE_WORKFLOW, VIDEO_WORKFLOW, REINDEX_ASSET, ARTIFACT_JOB_WORKFLOW, PAPER_SEARCH, VISUAL_DEGREES, RESEARCH_WORKFLOW]);
  });

  it('builds them from the environment: policy and timings', () => {
    const config = workflowConfigFromEnv({
      OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { retrieval_threshold: 0.9 } }),
      OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ index: { timeoutMs: 250 } }),
    });
    expect(config.policy.defaults.retrieval_threshold).toBe(0.9);
    expect(config.timings.index.timeoutMs).toBe(250);
    expect(new SagaRegistry(createWorkflowDefinitions(config)).all()).toHaveLength(4);
  });

  it('refuses to build from an invalid environment', () => {
    expect(() => workflowConfigFromEnv({ OPENPAW_POLICY_JSON: '{"defaults":{"retry_max":"3"}}' })).toThrow(/retry_max/);
  });
});
