/** The labels every OpenPaw object carries, and the selector of one workload. */
export const PART_OF = 'openpaw';

export function workloadLabels(name: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/part-of': PART_OF,
    'app.kubernetes.io/component': component,
  };
}

/** What a Service, PDB or NetworkPolicy selects a workload's pods by. */
export function selectorLabels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': PART_OF };
}
