import { visualDegreesRequest } from '@openpaw/contracts';
import type { JsonObject, RunSnapshot } from '@openpaw/saga';
import { DEFAULT_VISUAL_BUDGETS, VISUAL_DEGREES_PARAMETERS, type VisualDegreesData } from './visual-degrees.model.js';

/** S0: the request normalised, its limits and budgets fixed (the options within the caps, else the spec's defaults). */
export function initialVisualDegreesData(input: JsonObject, run: Pick<RunSnapshot, 'userId'>): VisualDegreesData {
  const start = visualDegreesRequest.parse(input);
  const options = start.options ?? {};
  const from = { name: start.from };
  return {
    sessionId: start.sessionId ?? run.userId.slice(0, 128),
    from,
    to: { name: start.to },
    hopLimit: options.maxHops ?? VISUAL_DEGREES_PARAMETERS.maxHops,
    budgets: {
      maxSearchCalls: options.maxSearchCalls ?? DEFAULT_VISUAL_BUDGETS.maxSearchCalls,
      maxRecognitionCalls: options.maxRecognitionCalls ?? DEFAULT_VISUAL_BUDGETS.maxRecognitionCalls,
      maxLlmCalls: options.maxLlmCalls ?? DEFAULT_VISUAL_BUDGETS.maxLlmCalls,
      maxRuntimeMs: options.maxRuntimeMs ?? DEFAULT_VISUAL_BUDGETS.maxRuntimeMs,
    },
    model: options.model ?? null,
    used: { searchCalls: 0, recognitionCalls: 0, llmCalls: 0, imagesSkipped: 0, costUsd: 0 },
    startedAt: null,
    stepNo: 0,
    step: null,
    command: null,
    strategy: options.strategy ?? 'meet_in_the_middle',
    side: 'from',
    path: [from],
    edges: [],
    reversePath: [{ name: start.to }],
    reverseEdges: [],
    candidates: [],
    failedFrom: {},
    deadEnds: [],
    exhaustedSides: [],
    sightings: { from: {}, to: {} },
    verifying: null,
    events: [],
    failure: null,
  };
}
