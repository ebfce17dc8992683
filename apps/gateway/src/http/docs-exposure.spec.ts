import { docsArePublic } from './openapi.js';

describe('where the OpenAPI docs are served', () => {
  it('only on the internal port in a cluster, unless OPENPAW_DOCS_PUBLIC=true; on the public port when there is no internal one', () => {
    expect(docsArePublic({}, true)).toBe(false);
    expect(docsArePublic({ OPENPAW_DOCS_PUBLIC: 'true' }, true)).toBe(true);
    expect(docsArePublic({ OPENPAW_DOCS_PUBLIC: 'yes' }, true)).toBe(false);
    expect(docsArePublic({}, false)).toBe(true);
  });
});
