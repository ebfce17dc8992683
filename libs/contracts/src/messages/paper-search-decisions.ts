import type { z } from 'zod';
import { type CheckpointKind, type Decision, type SearchStrategy, searchStrategyEdit, type UserFeedback, userFeedback, userFeedbackEdit } from './paper-search-model.js';

/** What a decision means for the run, per spec 04's decision-semantics table. */
export type InterpretedDecision =
  /** Checkpoint 1, APPROVE: search with the proposed strategy. */
  | { readonly kind: 'proceed' }
  /** Checkpoint 1, EDIT: search with the person's strategy instead. */
  | { readonly kind: 'use_strategy'; readonly strategy: SearchStrategy }
  /** Checkpoint 2, APPROVE: the run completes; `feedback` (if given) marks papers to accumulate. */
  | { readonly kind: 'complete'; readonly feedback: UserFeedback | null }
  /** Checkpoint 1 REJECT (no search this iteration), checkpoint 2 EDIT or REJECT: next iteration with this feedback. */
  | { readonly kind: 'iterate'; readonly feedback: UserFeedback; readonly searched: boolean }
  /** The decision does not validate for this checkpoint: answer the person with `reason`, keep waiting. */
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Validates a decision against the checkpoint it answers. EDIT of checkpoint 1 must be a
 * SearchStrategy, EDIT of checkpoint 2 a UserFeedback (unknown fields are errors); REJECT turns the
 * note into free-text feedback (checkpoint 2 also keeps marked papers sent with it).
 */
export function interpretDecision(kind: CheckpointKind, decision: Decision): InterpretedDecision {
  switch (kind) {
    case 'strategy_confirmation':
      return strategyDecision(decision);
    case 'result_review':
      return resultDecision(decision);
  }
}

function strategyDecision(decision: Decision): InterpretedDecision {
  switch (decision.action) {
    case 'approve':
      return { kind: 'proceed' };
    case 'edit': {
      const parsed = searchStrategyEdit.safeParse(decision.revisedData);
      if (!parsed.success) return { kind: 'invalid', reason: `revisedData is not a SearchStrategy: ${issues(parsed.error)}` };
      return { kind: 'use_strategy', strategy: parsed.data };
    }
    case 'reject':
      return { kind: 'iterate', feedback: noteFeedback(decision.note), searched: false };
  }
}

function resultDecision(decision: Decision): InterpretedDecision {
  switch (decision.action) {
    case 'approve': {
      if (decision.revisedData === undefined || decision.revisedData === null) return { kind: 'complete', feedback: null };
      const parsed = userFeedbackEdit.safeParse(decision.revisedData);
      if (!parsed.success) return { kind: 'invalid', reason: `revisedData is not a UserFeedback: ${issues(parsed.error)}` };
      return { kind: 'complete', feedback: parsed.data };
    }
    case 'edit': {
      const parsed = userFeedbackEdit.safeParse(decision.revisedData);
      if (!parsed.success) return { kind: 'invalid', reason: `revisedData is not a UserFeedback: ${issues(parsed.error)}` };
      const feedback = parsed.data.freeText === null && decision.note !== null ? { ...parsed.data, freeText: decision.note } : parsed.data;
      return { kind: 'iterate', feedback, searched: true };
    }
    case 'reject': {
      // Papers marked alongside a rejection still count; the note is the feedback's text.
      const marked = userFeedbackEdit.safeParse(decision.revisedData);
      const base = marked.success ? marked.data : noteFeedback(null);
      return { kind: 'iterate', feedback: { ...base, freeText: decision.note ?? base.freeText }, searched: true };
    }
  }
}

function noteFeedback(note: string | null): UserFeedback {
  return userFeedback.parse({ freeText: note });
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length === 0 ? '(root)' : i.path.join('.')}: ${i.message}`).join('; ');
}
