export { checkpointIdOf, paperSearchDefinition } from './paper-search.definition.js';
export { PAPER_SEARCH_STATES, PAPER_SEARCH_TRANSITIONS, type PaperSearchData, type PaperSearchState } from './paper-search.data.js';
export { DEFAULT_PAPER_SEARCH_SETTINGS, paperSearchSettingsFromEnv, type PaperSearchSettings } from './paper-search.settings.js';
