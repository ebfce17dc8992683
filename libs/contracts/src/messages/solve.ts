import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { problemSignature, solutionProvenance } from './problem.js';

export const GenerateSolution = defineCommand(
  'solve',
  'GenerateSolution',
  1,
  z.object({
    runId: z.uuid(),
    /** 1-based; the service uses it with the run id as its idempotency key. */
    attempt: z.int().positive(),
    signature: problemSignature,
    model: z.string(),
    fallbackModels: z.array(z.string()),
    costCapUsd: z.number().nonnegative(),
    spentUsd: z.number().nonnegative(),
  }),
  'Generate a self-contained HTML solution with the LLM; answers SolutionGenerated or SolutionFailed.',
);

export const SolutionGenerated = defineEvent(
  'solve',
  'SolutionGenerated',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    attempt: z.int().positive(),
    storageKey: z.string(),
    contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
    finalAnswer: z.string(),
    stepCount: z.int().nonnegative(),
    provenance: solutionProvenance,
  }),
  'An HTML solution is stored in blob storage.',
);

export const solveErrorCode = z.enum(['llm_unavailable', 'cost_cap_exceeded', 'cannot_solve', 'invalid_output', 'timeout']);

export const SolutionFailed = defineEvent(
  'solve',
  'SolutionFailed',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    attempt: z.int().positive(),
    errorCode: solveErrorCode,
    retryable: z.boolean(),
    detail: z.string(),
    costUsd: z.number().nonnegative(),
  }),
  'A solve attempt failed (retryable or not).',
);
