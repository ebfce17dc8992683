import { type EngineJob, runEngineJob } from './engine-job.js';

/**
 * The solves a fresh engine runs before it takes real work, with the 5 s start budget: the first solve in
 * a thread or process compiles the reader and the solvers (JIT, mathjs' lazy parts), which under load
 * takes longer than the 1 s a real solve may run. The engine's worker threads run it before they report
 * ready; a process that solves on its own thread (a spec file) runs it first too, so its first real
 * solve is held to the same budget as production's, not to the start-up's.
 */
export const WARM_UP_JOBS: readonly EngineJob[] = [
  { kind: 'solve', text: 'Solve 2x + 3 = 11', budget: { steps: 2_000_000, millis: 5_000 } },
  // Derivatives and integrals go through a CAS (nerdamer) that the algebra never loads.
  { kind: 'solve', text: 'Integrate 3x^2 + 2x dx', budget: { steps: 2_000_000, millis: 5_000 } },
  // An answer check compiles its own paths (substitution, the answer's reader): a fresh worker's first
  // check took 150–265 ms at load 10, past the 250 ms grace of a short budget, when only solves warmed it.
  { kind: 'check', problem: 'Solve 2x + 3 = 11', finalAnswer: 'x = 4', budget: { steps: 2_000_000, millis: 5_000 } },
];

/** Runs the warm-up solves on this thread. Their answers are not used: a warm-up past even the start budget leaves a slower first solve, not a failed one. */
export function warmUpEngine(): void {
  for (const job of WARM_UP_JOBS) runEngineJob(job);
}
