import type { AnySagaDefinition } from './definition.js';
import { validateDefinition } from './transition-table.js';

/** The workflows a coordinator runs, by type, and which event subjects each consumes. */
export class SagaRegistry {
  private readonly definitions = new Map<string, AnySagaDefinition>();
  private readonly inputs = new Map<string, Set<string>>();

  constructor(definitions: readonly AnySagaDefinition[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: AnySagaDefinition): this {
    validateDefinition(definition);
    if (this.definitions.has(definition.type)) throw new Error(`workflow ${definition.type} registered twice`);
    this.definitions.set(definition.type, definition);
    this.inputs.set(definition.type, new Set(definition.inputs.map((m) => m.subject)));
    return this;
  }

  get(type: string): AnySagaDefinition | undefined {
    return this.definitions.get(type);
  }

  consumes(type: string, subject: string): boolean {
    return this.inputs.get(type)?.has(subject) ?? false;
  }

  /** Every event subject some workflow consumes. */
  consumedSubjects(): ReadonlySet<string> {
    return new Set([...this.inputs.values()].flatMap((s) => [...s]));
  }

  all(): readonly AnySagaDefinition[] {
    return [...this.definitions.values()];
  }
}
