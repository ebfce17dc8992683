export { toBibtex } from './bibtex-export.js';
export { toRis } from './ris-export.js';
export { type CslItem, toCslJson } from './csl-json-export.js';
