import { BoundedMathsEngine } from '../engine-pool.js';
import { engineWorkerPidsOf } from './child-processes.js';

// A service's process, as far as the bounded engine is concerned (engine-process.spec.ts runs it): it
// starts one engine worker, solves one problem, prints its worker's pid and the answer, and then either
// ends its work without closing the engine (`leave`: idle workers must not keep it alive) or stays
// up (`stay`: the spec kills it, and its worker must end with it).
const mode = process.argv[2];
if (mode !== 'leave' && mode !== 'stay') throw new Error('usage: engine-host.ts leave|stay');
const engine = new BoundedMathsEngine({ workers: 1 });
const outcome = await engine.solve('Solve 2x + 3 = 11');
process.stdout.write(`${JSON.stringify({ workers: engineWorkerPidsOf(process.pid), outcome })}\n`);
if (mode === 'stay') setInterval(() => undefined, 60_000);
