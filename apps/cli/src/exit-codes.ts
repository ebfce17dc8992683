/**
 * The CLI's exit codes, one table for every verb (apps/cli/README.md shows it):
 *
 * | code | meaning |
 * | --- | --- |
 * | 0 | succeeded |
 * | 1 | failed (the run FAILED, or the API refused the action, e.g. a cancel) |
 * | 2 | usage error (bad arguments, no credentials) |
 * | 3 | API error, or the gateway could not be reached |
 * | 4 | cancelled |
 * | 5 | still running: under `--no-wait`, from `status`, when `--timeout` passed, or a search waiting at a checkpoint |
 */
export const EXIT = { succeeded: 0, failed: 1, usage: 2, apiError: 3, cancelled: 4, stillRunning: 5 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of a run in `state` (terminal or not). */
export function exitOfRunState(state: string, terminal: boolean): ExitCode {
  if (!terminal) return EXIT.stillRunning;
  if (state === 'SUCCEEDED') return EXIT.succeeded;
  if (state === 'CANCELLED') return EXIT.cancelled;
  return EXIT.failed;
}
