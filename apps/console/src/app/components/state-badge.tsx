import { stateLabel } from '../workflows.js';

/** A run's state, with its raw name for operators and a tone that never relies on colour alone (the text says it). */
export function StateBadge({ state, terminal }: { state: string; terminal: boolean }) {
  const tone = state === 'SUCCEEDED' ? 'ok' : state === 'FAILED' ? 'bad' : state === 'CANCELLED' ? 'muted' : terminal ? 'muted' : 'active';
  return (
    <span class={`badge badge-${tone}`} data-state={state}>
      {stateLabel(state)}
    </span>
  );
}
