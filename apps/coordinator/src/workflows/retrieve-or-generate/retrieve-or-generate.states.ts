/** Spec 01's states and TRANSITIONS, and the table the engine enforces. */
export const RETRIEVE_OR_GENERATE_STATES = [
  'INITIATED',
  'INGESTING',
  'AWAITING_READING_CONFIRMATION',
  'RETRIEVING',
  'GENERATING_SOLUTION',
  'REGISTERING',
  'INDEXING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
] as const;
export type RetrieveOrGenerateState = (typeof RETRIEVE_OR_GENERATE_STATES)[number];
type S = RetrieveOrGenerateState;

/** The spec's TRANSITIONS, verbatim. CANCELLED is reachable only up to GENERATING_SOLUTION (ADR 0001). */
export const SPEC_TRANSITIONS = {
  INITIATED: ['INGESTING', 'CANCELLED'],
  INGESTING: ['RETRIEVING', 'FAILED', 'CANCELLED'],
  RETRIEVING: ['SUCCEEDED', 'GENERATING_SOLUTION', 'FAILED', 'CANCELLED'],
  GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED'],
  REGISTERING: ['INDEXING', 'FAILED'],
  INDEXING: ['SUCCEEDED', 'FAILED'],
} as const satisfies Partial<Record<S, readonly S[]>>;

/**
 * The table the engine enforces: SPEC_TRANSITIONS plus one edge, GENERATING_SOLUTION → SUCCEEDED.
 * The spec's retry section serves a near-miss (`is_approximate: true`) when solving failed, which is a
 * success reached from GENERATING_SOLUTION, but its TRANSITIONS omit that edge; without it the engine
 * would refuse the near-miss. The edge is used for nothing else.
 */
export const RETRIEVE_OR_GENERATE_TRANSITIONS: Readonly<Partial<Record<S, readonly S[]>>> = {
  ...SPEC_TRANSITIONS,
  INGESTING: [...SPEC_TRANSITIONS.INGESTING, 'AWAITING_READING_CONFIRMATION'],
  // Read → confirm → solve (issue 25): the confirmed or corrected reading is ingested as text.
  AWAITING_READING_CONFIRMATION: ['INGESTING', 'FAILED', 'CANCELLED'],
  GENERATING_SOLUTION: [...SPEC_TRANSITIONS.GENERATING_SOLUTION, 'SUCCEEDED'],
};

/** States a cancel may end (ADR 0001: up to GENERATING_SOLUTION). */
export const RETRIEVE_OR_GENERATE_CANCELLABLE: readonly S[] = ['INITIATED', 'INGESTING', 'AWAITING_READING_CONFIRMATION', 'RETRIEVING', 'GENERATING_SOLUTION'];
