/** What benches (bench/) use of the research service; nothing else imports from here. */
export { deduplicate } from './paper-search/dedup/deduplicate.js';
export { paperIdOf } from './paper-search/papers/paper-id.js';
