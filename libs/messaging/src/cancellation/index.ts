export { abortOnRunEnded, type AbortOnRunEndedOptions } from './abort-on-run-ended.js';
export { InFlightAborts, RunEndedError } from './in-flight-aborts.js';
