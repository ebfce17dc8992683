import { clearPendingRetry, type StepLogEntry } from '@openpaw/saga';
import type { EdgeRefuted, EdgeVerified, MessageData, VisualPersonTakenDown } from '@openpaw/contracts';
import { verifiedWithoutTakenDown, withoutPerson } from './visual-degrees.chains.js';
import { discoverWithinHops } from './visual-degrees.commands.js';
import { hopsVerified, type VisualDegreesData, type VisualDegreesTimings } from './visual-degrees.data.js';
import { fail, ignore, nextSide, PERSON_TAKEN_DOWN_MESSAGE, type Run, select, type VisualDecision } from './visual-degrees.outcomes.js';
import { pathUpdate, redactPerson, status, withEvents } from './visual-degrees.view.js';

/**
 * visual_degrees' takedown rows (an amendment: `VisualPersonTakenDown` delivered to the runs naming the
 * person): a running run re-plans without them, a finished one is redacted; and a late `EdgeVerified`
 * reply read as if the service had known every takedown the run has seen.
 */

/**
 * An `EdgeVerified` reply decided as the row's refutation when, without the photos of a person taken
 * down while the run went on (`verifiedWithoutTakenDown`), no evidence is left: a late reply does not
 * put an edge on the chain that only a removed picture shows.
 */
export function asTakenDownAllows(
  run: Run,
  reply: MessageData<typeof EdgeVerified>,
  verified: (d: MessageData<typeof EdgeVerified>) => VisualDecision,
  refuted: (d: MessageData<typeof EdgeRefuted>) => VisualDecision,
): VisualDecision {
  const read = verifiedWithoutTakenDown(run.data, reply);
  return 'verified' in read ? verified(read.verified) : refuted(read.refuted);
}

/**
 * A running run told that a person was taken down (an amendment; the service no longer recognises them,
 * within its takedown list's refresh). Not named nor pictured: nothing changes. A person it connects (A
 * or B): S7 `person_taken_down`, redacted (there is no chain to find without them). Anyone else: their
 * name and photos are redacted as in a finished run, they leave the chains (`withoutPerson`: an edge to
 * them, or left without a photo, cuts its chain there) and the candidates, and become a dead end. When a
 * chain was cut, or the step in flight was asked about them (its command named or pictured them), the
 * run re-plans: S2 from the frontier left (or S3 again over the candidates left), a new step, so the old
 * step's reply is stale; else it carries on as it was.
 */
export function takenDownWhileRunning(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof VisualPersonTakenDown>, now: Date): VisualDecision {
  const redacted = redactPerson(run.data, d.celebrityId);
  if (redacted === undefined) return ignore('the run does not name the person taken down');
  const log = { step: 'decision', payload: { decision: 'person_taken_down', celebrity_id: d.celebrityId, state: run.state, at: now.toISOString() } };
  if (run.data.from.celebrityId === d.celebrityId || run.data.to.celebrityId === d.celebrityId) {
    const failed = fail(redacted, 'person_taken_down', `a person the run connects was taken down in ${run.state}`, now, 'person_taken_down', { message: PERSON_TAKEN_DOWN_MESSAGE });
    return failed.outcome === 'transition' ? { ...failed, logs: [log, ...(failed.logs ?? [])] } : failed;
  }
  const { data: pruned, cut } = withoutPerson(redacted, d.celebrityId);
  const stepAboutThem = JSON.stringify(redacted.command) !== JSON.stringify(run.data.command);
  const told = withEvents(
    pruned,
    now,
    status(cut ? 'A person on the chain was taken down; the chain is cut back before them and the search goes on…' : 'A person seen in this investigation was taken down; their photos are removed.'),
    ...(cut ? [pathUpdate(pruned.path, hopsVerified(pruned), pruned.strategy === 'one_sided' ? undefined : pruned.reversePath)] : []),
  );
  if (!cut && !stepAboutThem) return { outcome: 'stay', data: told, step: 'person_taken_down', logs: [log] };
  const replanned = replanWithout(timings, run, told, cut, now, [log]);
  if (replanned.outcome === 'transition' && replanned.to === run.state) {
    const { to: _same, ...stay } = replanned;
    return { ...stay, outcome: 'stay', effects: [...clearPendingRetry(run.data.step), ...(replanned.effects ?? [])] };
  }
  return replanned.outcome === 'transition' && replanned.to !== 'FAILED' ? { ...replanned, effects: [...clearPendingRetry(run.data.step), ...(replanned.effects ?? [])] } : replanned;
}

/** The new step after a takedown: S3 again over the candidates left when the chain stands, else S2 (within the hop limit), or S7. */
function replanWithout(timings: VisualDegreesTimings, run: Run, data: VisualDegreesData, cut: boolean, now: Date, logs: StepLogEntry[]): VisualDecision {
  if (run.state === 'SELECTING' && !cut && data.candidates.length > 0) return select(timings, run, data, now, 'person_taken_down', logs);
  const next = discoverWithinHops(timings, run, { ...data, side: nextSide(data) }, now);
  if ('failed' in next) return fail(data, next.failed, next.detail, now, 'person_taken_down');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'person_taken_down', logs: [...logs, ...next.logs], effects: next.effects };
}

/**
 * A finished run (S6, S7 or cancelled) told that a person was taken down: when it names them, its data
 * (and so its view, published anew) is redacted, its state kept; otherwise nothing changes.
 */
export function redacted(run: Run, d: MessageData<typeof VisualPersonTakenDown>, now: Date): VisualDecision {
  const data = redactPerson(run.data, d.celebrityId);
  if (data === undefined) return ignore('the run does not name the person taken down');
  return { outcome: 'stay', data, step: 'person_redacted', logs: [{ step: 'decision', payload: { decision: 'person_redacted', celebrity_id: d.celebrityId, at: now.toISOString() } }] };
}
