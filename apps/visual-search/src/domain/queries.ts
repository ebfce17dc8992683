/** The spec's query templates, in its order. */
export function directEdgeQueries(from: string, to: string): string[] {
  return [`${from} ${to}`, `${from} ${to} event`];
}

export function discoveryQueries(frontier: string): string[] {
  return [`${frontier} with celebrities`, `${frontier} event`, `${frontier} awards`];
}
