import { recordingLogger } from '../test-support/recording-logger.js';
import { createScholarlySourcesFromEnv } from './create-scholarly-sources-from-env.js';

describe('createScholarlySourcesFromEnv', () => {
  it('has no remote sources by default and says the library is the local default', () => {
    const logger = recordingLogger();
    expect(createScholarlySourcesFromEnv({}, { logger })).toEqual([]);
    expect(logger.lines[0]!.msg).toContain('LOCAL library only');
  });

  it('builds the requested sources; serpapi only with a key; unknown names are an error', () => {
    const logger = recordingLogger();
    const names = createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'all', OPENPAW_SCHOLARLY_MAILTO: 'a@b.c' }, { logger }).map((s) => s.name);
    expect(names).toEqual(['openalex', 'arxiv', 'crossref', 'semantic_scholar']);
    expect(logger.lines.some((l) => l.msg.includes('SERPAPI_API_KEY is not set'))).toBe(true);
    expect(createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'arxiv, serpapi_scholar', SERPAPI_API_KEY: 'k' }).map((s) => s.name)).toEqual(['arxiv', 'serpapi_scholar']);
    expect(() => createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'openalex,pubmed' })).toThrow(/pubmed/);
  });
});
