export { toBibtex } from './bibtex-export.js';
export { toRis } from './ris-export.js';
export { type CslItem, toCslJson } from './csl-json-export.js';
export { foldText, isArxivDoi } from './paper-text.js';
export { familyName, splitName } from './person-name.js';
export { publishedVenueOf, recordKindOf } from './record-kind.js';
