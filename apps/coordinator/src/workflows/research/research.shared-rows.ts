import { ResearchTitleGenerated } from '@openpaw/contracts';
import { commandIdFor, type Decision, onEvent, onHuman, type Row } from '@openpaw/saga';
import type { ResearchData } from './research.data.js';
import { titleKey } from './research.ids.js';
import type { ResearchState } from './research.transitions.js';

type S = ResearchState;
type D = ResearchData;

export const ignore = (reason: string): Decision<S, D> => ({ outcome: 'ignore', reason });

/** The generated title, in whichever state it arrives (a fallback title is replaced once). */
export const titleGenerated = onEvent<S, D, typeof ResearchTitleGenerated>(ResearchTitleGenerated, [], (run, { data: r }) => {
  if (commandIdFor(run.id, run.attemptNo, titleKey(run.data.request.titleRound)) !== r.commandId) return ignore('not the title command of the current prompt');
  if (run.data.request.titleSource !== 'fallback') return ignore('the title is already set');
  return { outcome: 'stay', data: { ...run.data, request: { ...run.data.request, title: r.title, titleSource: r.source } }, step: 'title_generated' };
});

/**
 * A human input this state does not take, refused (not just ignored) so the caller hears why: the
 * gateway checks the state first, but its projection may be a moment behind.
 */
export const refuseIn = (state: S, inputTypes: readonly string[]): Row<S, D>[] =>
  inputTypes.map((inputType) =>
    onHuman<S, D>(inputType, [], () => ({ outcome: 'refuse', reason: `${inputType} is not possible while the research is ${state}` })),
  );
