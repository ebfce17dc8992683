import { productionRegistry } from './workflows/index.js';
import { HUMAN_WAIT_STATES, machineWorkStates } from './idle-runs.js';

const definitions = productionRegistry().all();

describe('the states the stuck-runs metric watches', () => {
  it('lists only non-terminal states of registered workflows as waiting for a person, and every "awaiting" state among them', () => {
    for (const [type, states] of Object.entries(HUMAN_WAIT_STATES)) {
      const definition = definitions.find((d) => d.type === type);
      expect({ type, registered: definition !== undefined }).toEqual({ type, registered: true });
      for (const state of states) expect({ type, state, nonTerminal: definition?.states.includes(state) === true && !definition.terminal.includes(state) }).toEqual({ type, state, nonTerminal: true });
    }
    const unlisted = definitions.flatMap((d) => d.states.filter((s) => /awaiting/i.test(s) && !d.terminal.includes(s) && !(HUMAN_WAIT_STATES[d.type] ?? []).includes(s)).map((s) => `${d.type}.${s}`));
    expect(unlisted).toEqual([]);
  });

  it('watches every other non-terminal state, and no terminal one', () => {
    const watched = machineWorkStates(definitions);
    expect(watched).toContainEqual({ workflowType: 'solve_workflow', state: 'GENERATING' });
    expect(watched).toContainEqual({ workflowType: 'research', state: 'processing' });
    expect(watched).not.toContainEqual({ workflowType: 'research', state: 'awaiting_confirmation' });
    expect(watched).not.toContainEqual({ workflowType: 'retrieve_or_generate', state: 'AWAITING_READING_CONFIRMATION' });
    for (const definition of definitions) {
      const nonTerminal = definition.states.filter((s) => !definition.terminal.includes(s));
      const human = HUMAN_WAIT_STATES[definition.type] ?? [];
      expect(watched.filter((w) => w.workflowType === definition.type).map((w) => w.state)).toEqual(nonTerminal.filter((s) => !human.includes(s)));
    }
  });
});
