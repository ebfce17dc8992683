import type { AnySagaDefinition } from './definition.js';
import { validateDefinition } from './transition-table.js';

/** The workflows a coordinator runs, by type, and which event subjects each consumes. */
export class SagaRegistry {
  private readonly definitions = new Map<string, AnySagaDefinition>();
  private readonly inputs = new Map<string, Set<string>>();
  /** Amendment subject → the workflows that take it (looked up for every message the coordinator receives). */
  private readonly amenders = new Map<string, AnySagaDefinition[]>();

  constructor(definitions: readonly AnySagaDefinition[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: AnySagaDefinition): this {
    validateDefinition(definition);
    if (this.definitions.has(definition.type)) throw new Error(`workflow ${definition.type} registered twice`);
    this.definitions.set(definition.type, definition);
    // Amendments are inputs of the run they are handed to (the coordinator finds the runs).
    this.inputs.set(definition.type, new Set([...definition.inputs, ...(definition.amendedBy ?? [])].map((m) => m.subject)));
    for (const { subject } of definition.amendedBy ?? []) this.amenders.set(subject, [...(this.amenders.get(subject) ?? []), definition]);
    return this;
  }

  get(type: string): AnySagaDefinition | undefined {
    return this.definitions.get(type);
  }

  consumes(type: string, subject: string): boolean {
    return this.inputs.get(type)?.has(subject) ?? false;
  }

  /** The workflows that take `subject` as an amendment (it names no run: the coordinator finds their runs it concerns). */
  amendersOf(subject: string): readonly AnySagaDefinition[] {
    return this.amenders.get(subject) ?? [];
  }

  /** Every event subject some workflow consumes. */
  consumedSubjects(): ReadonlySet<string> {
    return new Set([...this.inputs.values()].flatMap((s) => [...s]));
  }

  all(): readonly AnySagaDefinition[] {
    return [...this.definitions.values()];
  }
}
