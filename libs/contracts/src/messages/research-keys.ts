import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { KEYED_RESEARCH_PROVIDERS, sealedKey } from './research-flow.js';

/**
 * A user's "Test" of a stored model-provider key (spec 05, ADR 0014): the gateway never calls a
 * provider, so it hands the sealed key to the research service (the owner of outbound model calls),
 * which opens it, makes one minimal call through the provider's client and reports how it went.
 */

/**
 * How a key test went. `ok`: the provider answered. `auth`: it refused the key (401/403), or the
 * stored key cannot be opened. `quota`: it answered 429 (out of credit or rate-limited; the reason
 * says which). `model_unknown`: it does not know the model asked for (404). `unreachable`: no answer
 * (network error or timeout). `provider_error`: any other refusal or failure (5xx, 400, a malformed answer).
 */
export const RESEARCH_KEY_TEST_OUTCOMES = ['ok', 'auth', 'quota', 'model_unknown', 'unreachable', 'provider_error'] as const;
export type ResearchKeyTestOutcome = (typeof RESEARCH_KEY_TEST_OUTCOMES)[number];

/** The longest reason a key test reports (the provider's message, with any key redacted). */
export const RESEARCH_KEY_TEST_REASON_CHARS = 500;

export const TestResearchProviderKey = defineCommand(
  'research',
  'TestResearchProviderKey',
  1,
  z.object({
    userId: z.string().min(1),
    provider: z.enum(KEYED_RESEARCH_PROVIDERS),
    /** The user's stored key of `provider`, sealed to the research service (as a research start carries it). */
    key: sealedKey,
    /** The test's id: its report's `testId`, so the gateway records only the latest test of the key it tested. */
    testId: z.uuid(),
    requestedAt: z.iso.datetime({ offset: true }),
  }),
  "Make one minimal call to a model provider with a user's stored key and report it as ResearchProviderKeyTested (never the key).",
);

export const ResearchProviderKeyTested = defineEvent(
  'research',
  'ResearchProviderKeyTested',
  1,
  z.object({
    userId: z.string().min(1),
    provider: z.enum(KEYED_RESEARCH_PROVIDERS),
    testId: z.uuid(),
    testedAt: z.iso.datetime({ offset: true }),
    outcome: z.enum(RESEARCH_KEY_TEST_OUTCOMES),
    /** The `provider/model` asked (the one research legs of this provider use). */
    model: z.string().min(1),
    /** How long the provider took to answer or fail (ms); null when no call was made (a key that cannot be opened). */
    latencyMs: z.int().nonnegative().nullable(),
    /** Why it was not `ok`: the provider's status and message, never the key; null when ok. */
    reason: z.string().max(RESEARCH_KEY_TEST_REASON_CHARS).nullable(),
  }),
  "How a test of a user's model-provider key went (for the user to see next to the key).",
);
