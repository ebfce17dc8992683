import type { MessageData, VisualPersonTakenDown } from '@openpaw/contracts';
import { ignore, type Run, type VisualDecision } from '../outcomes.js';
import { redactPerson } from '../redaction.js';

/**
 * A finished run (S6, S7 or cancelled) told that a person was taken down: when it names them, its data
 * (and so its view, published anew) is redacted, its state kept; otherwise nothing changes.
 */
export function redacted(run: Run, d: MessageData<typeof VisualPersonTakenDown>, now: Date): VisualDecision {
  const data = redactPerson(run.data, d.celebrityId);
  if (data === undefined) return ignore('the run does not name the person taken down');
  return { outcome: 'stay', data, step: 'person_redacted', logs: [{ step: 'decision', payload: { decision: 'person_redacted', celebrity_id: d.celebrityId, at: now.toISOString() } }] };
}
