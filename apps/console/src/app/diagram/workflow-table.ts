/** A workflow's transition table as the coordinator publishes it (`apps/coordinator/workflow-tables.json`). */
export interface WorkflowTable {
  readonly type: string;
  readonly states: readonly string[];
  readonly initial: string;
  readonly terminal: readonly string[];
  readonly cancelledState: string | null;
  readonly transitions: Readonly<Record<string, readonly string[]>>;
}
