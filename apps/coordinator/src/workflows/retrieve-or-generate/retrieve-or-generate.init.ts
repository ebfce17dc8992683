import type { JsonObject, RunSnapshot } from '@openpaw/saga';
import type { PolicyEngine } from '../policy/index.js';
import { RETRIEVE_OR_GENERATE } from '../shared/workflow-types.js';
import { type DataAt, retrieveOrGenerateStartSchema } from './retrieve-or-generate.data.js';

/** The request as submitted, with the policy resolved for it (logged as step 0 when the run starts). */
export function initialRetrieveOrGenerateData(input: JsonObject, run: Pick<RunSnapshot, 'userId'>, policies: PolicyEngine): DataAt<'created'> {
  const request = retrieveOrGenerateStartSchema.parse(input);
  return {
    request,
    policy: policies.getPolicy(RETRIEVE_OR_GENERATE, run.userId, request.subscriptionTier, request.contentSensitivity),
    costUsd: 0,
    stage: 'created',
  };
}
