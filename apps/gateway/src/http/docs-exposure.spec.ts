import { gatewayConfigFromEnv } from '../config.js';
import { docsArePublic } from './openapi.js';

const docsPublicOf = (value?: string): boolean | undefined =>
  gatewayConfigFromEnv({ OPENPAW_JWT_SECRET: 'x'.repeat(32), ...(value === undefined ? {} : { OPENPAW_DOCS_PUBLIC: value }) }).docsPublic;

describe('where the OpenAPI docs are served', () => {
  it('only on the internal port in a cluster, unless OPENPAW_DOCS_PUBLIC=true; on the public port when there is no internal one', () => {
    expect(docsArePublic(docsPublicOf() === true, true)).toBe(false);
    expect(docsArePublic(docsPublicOf('true') === true, true)).toBe(true);
    expect(docsArePublic(docsPublicOf('yes') === true, true)).toBe(false);
    expect(docsArePublic(docsPublicOf() === true, false)).toBe(true);
  });
});
