import { fallbackResearchTitle, providersNeedingKeys, RESEARCH_WORKFLOW, type ResearchDraftInput, researchDraftInput } from '@openpaw/contracts';
import type { JsonObject, RunSnapshot } from '@openpaw/saga';
import type { PolicyEngine } from '../policy/index.js';
import { freshLeg, missingKeys, type ResearchData } from './research.data.js';

type D = ResearchData;

/** The draft as requested (its keys checked when it starts at once), with the policy's cost cap. */
export function initialResearchData(input: JsonObject, run: Pick<RunSnapshot, 'userId'>, policies: PolicyEngine): D {
  const request: ResearchDraftInput = researchDraftInput.parse(input);
  if (request.start) {
    const missing = missingKeys(request.keys, providersNeedingKeys(request));
    if (missing.length > 0) throw new Error(`no API key for ${missing.join(', ')}`);
  }
  const policy = policies.getPolicy(RESEARCH_WORKFLOW, run.userId, request.subscriptionTier, 'standard');
  return {
    request: {
      title: request.title ?? fallbackResearchTitle(request.prompt),
      titleRound: 1,
      titleSource: request.title === null ? 'fallback' : 'user',
      prompt: request.prompt,
      selectedLlms: request.selectedLlms,
      synthesisLlm: request.synthesisLlm,
      externalReports: request.externalReports,
      subscriptionTier: request.subscriptionTier,
    },
    keys: request.keys,
    costCapUsd: policy.cost_cap_usd,
    startedAt: null,
    completedAt: null,
    legs: request.selectedLlms.map(freshLeg),
    retryCount: 0,
    partialFailure: null,
    synthesisRound: 0,
    synthesis: null,
    synthesisSkipped: false,
    synthesisError: null,
    synthesisCostUsd: 0,
    shareInfo: null,
    error: null,
    errorKind: null,
    errorReason: null,
    failures: 0,
  };
}
