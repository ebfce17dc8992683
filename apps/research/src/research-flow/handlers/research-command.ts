import type { KeyedResearchProvider, ResearchProvider } from '@openpaw/contracts';
import { LegFailure } from '../researchers/researcher.js';
import type { KeyOpener } from '../ports.js';

/** A command as its handler receives it: the envelope id (reply ids derive from it) and the data. */
export interface FlowCommand<D> {
  readonly commandId: string;
  readonly data: D;
}

/** The user's key for `provider`, opened; null for `local`. Throws `LegFailure` when it is missing or cannot be opened. */
export function openKey(keys: KeyOpener, userId: string, provider: ResearchProvider, sealed: string | null): string | null {
  if (provider === 'local') return null;
  if (sealed === null) throw new LegFailure('no_key', `no ${provider} API key for this user`);
  try {
    return keys.open(userId, provider satisfies KeyedResearchProvider, sealed);
  } catch {
    throw new LegFailure('auth', `the stored ${provider} key cannot be opened: enter it again`);
  }
}

/** The leg's (or synthesis') signal: its hard cap from now (its pickup), or the research ending. */
export function capped(cancel: AbortSignal, capMs: number): AbortSignal {
  return AbortSignal.any([cancel, AbortSignal.timeout(capMs)]);
}
