/** The spec's query templates. */
export const directQueries = (a: string, b: string): string[] => [`${a} ${b}`];
// Spec S2's examples are three; two keep a hop at 3 searches (discovery + the bridge), so the spec's budget of 20 reaches a 6th hop.
export const discoveryQueries = (frontier: string): string[] => [`${frontier} with celebrities`, `${frontier} event`];
export const verificationQueries = (f: string, x: string): string[] => [`${f} ${x}`, `${f} ${x} event`];
