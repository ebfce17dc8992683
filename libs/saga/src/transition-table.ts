import type { AnySagaDefinition } from './definition.js';

export function isTerminal(definition: AnySagaDefinition, state: string): boolean {
  return (definition.terminal).includes(state);
}

/** The human input types that reopen `state` (`reopenableBy`): none unless it is terminal. */
export function reopeningInputs(definition: AnySagaDefinition, state: string): readonly string[] {
  return isTerminal(definition, state) ? (definition.reopenableBy?.[state] ?? []) : [];
}

/** A terminal state that some human input may reopen. */
export function isReopenable(definition: AnySagaDefinition, state: string): boolean {
  return reopeningInputs(definition, state).length > 0;
}

export function isAllowed(definition: AnySagaDefinition, from: string, to: string): boolean {
  if (isTerminal(definition, from) && !isReopenable(definition, from)) return false;
  const targets = (definition.transitions as Record<string, readonly string[] | undefined>)[from];
  return targets?.includes(to) ?? false;
}

/** Checks a definition's table is well-formed; run at registration so a typo fails at start-up. */
export function validateDefinition(definition: AnySagaDefinition): void {
  const states = new Set<string>(definition.states);
  const problems: string[] = [];
  if (!states.has(definition.initial)) problems.push(`initial state ${definition.initial} is not a state`);
  for (const terminal of definition.terminal) if (!states.has(terminal)) problems.push(`terminal ${terminal} is not a state`);
  for (const [from, targets] of Object.entries(definition.transitions as Record<string, readonly string[]>)) {
    if (!states.has(from)) problems.push(`transition source ${from} is not a state`);
    if (isTerminal(definition, from) && !isReopenable(definition, from)) problems.push(`terminal state ${from} has outgoing transitions`);
    for (const to of targets) if (!states.has(to)) problems.push(`transition ${from} -> ${to}: unknown target`);
  }
  if (definition.cancelledState !== undefined && !isTerminal(definition, definition.cancelledState)) {
    problems.push(`cancelled state ${definition.cancelledState} must be terminal`);
  }
  for (const state of Object.keys(definition.reopenableBy ?? {})) {
    if (!isTerminal(definition, state)) problems.push(`reopenable state ${state} must be terminal`);
  }
  for (const state of definition.keyClaims?.releasedIn ?? []) {
    if (!isTerminal(definition, state)) problems.push(`key-releasing state ${state} must be terminal`);
  }
  for (const state of definition.retryableFrom ?? []) {
    if (!isTerminal(definition, state)) problems.push(`retryable state ${state} must be terminal`);
  }
  if (problems.length > 0) throw new Error(`saga definition ${definition.type} is invalid: ${problems.join('; ')}`);
}
