import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
// This spec checks the compose file against what each service's own settings read, so it imports
// every service's settings function (no service imports another; only this test reads them all).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { artifactsSettingsFromEnv } from '../../apps/artifacts/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { assetsSettingsFromEnv } from '../../apps/assets/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { coordinatorSettingsFromEnv } from '../../apps/coordinator/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { gatewayConfigFromEnv } from '../../apps/gateway/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ingestionSettingsFromEnv } from '../../apps/ingestion/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { researchSettingsFromEnv } from '../../apps/research/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { retrievalSettingsFromEnv } from '../../apps/retrieval/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { solveSettingsFromEnv } from '../../apps/solve/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { visualSearchSettingsFromEnv } from '../../apps/visual-search/src/config.js';
import { SEPARATE_LANES, type ServiceName, SERVICES } from './topology.js';

const ROOT = join(import.meta.dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { readonly command?: readonly string[]; readonly environment?: Record<string, string> }>;
};

/** What each service's `main.ts` reads its settings with (`bootstrapService({ settings })`): every setting it validates at start. */
const SETTINGS_OF: Readonly<Record<ServiceName, (env: NodeJS.ProcessEnv) => unknown>> = {
  gateway: gatewayConfigFromEnv,
  coordinator: coordinatorSettingsFromEnv,
  ingestion: ingestionSettingsFromEnv,
  retrieval: retrievalSettingsFromEnv,
  solve: solveSettingsFromEnv,
  assets: assetsSettingsFromEnv,
  artifacts: artifactsSettingsFromEnv,
  research: researchSettingsFromEnv,
  'visual-search': visualSearchSettingsFromEnv,
};

/**
 * The variables a library reads from `process.env` itself, outside the settings (the files of
 * `libs/<name>/src` that read `process.env`): libs/platform's port, host, log level, shutdown grace,
 * tracing and metrics port in every service; libs/persistence's migration mode and waits in a
 * service with a schema.
 */
function processReadsOf(lib: string): Set<string> {
  const dir = join(ROOT, 'libs', lib, 'src');
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))) {
    const source = readFileSync(join(dir, file), 'utf8');
    if (!source.includes('process.env')) continue;
    for (const match of source.matchAll(/env\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)) names.add(match[1] as string);
  }
  return names;
}

/**
 * The variables a service's settings read, given `environment`: a proxy records each one looked up.
 * It lists no keys, so a copy of the whole environment (`{ ...env }`, kept for provider factories
 * that each validate their own variables at start) reads nothing it does not look up by name.
 */
function variablesRead(settingsOf: (env: NodeJS.ProcessEnv) => unknown, environment: Readonly<Record<string, string>>): Set<string> {
  const read = new Set<string>();
  const env = new Proxy<NodeJS.ProcessEnv>(
    {},
    {
      get: (_, key) => {
        if (typeof key === 'string') read.add(key);
        return typeof key === 'string' ? environment[key] : undefined;
      },
      has: (_, key) => {
        if (typeof key === 'string') read.add(key);
        return typeof key === 'string' && key in environment;
      },
      ownKeys: () => [],
    },
  );
  settingsOf(env);
  return read;
}

/** Each compose service that runs a platform service (lanes run their service's entry point), with that service. */
function composeApps(): { app: string; service: ServiceName }[] {
  const lanes = new Map<string, ServiceName>(SEPARATE_LANES.map((lane) => [`${lane.service}-${lane.lane}`, lane.service]));
  return Object.keys(compose.services).flatMap((app) => {
    const service = lanes.get(app) ?? (app in SETTINGS_OF ? (app as ServiceName) : undefined);
    return service === undefined ? [] : [{ app, service }];
  });
}

describe('docker-compose.yml: each service gets only the environment it reads', () => {
  const everyService = processReadsOf('platform');
  const withSchema = processReadsOf('persistence');
  const hasSchema = (service: ServiceName): boolean => SERVICES.find((spec) => spec.name === service)?.database === true;

  it('finds the variables libraries read themselves, and every service of the topology in the compose file', () => {
    expect([...everyService]).toEqual(expect.arrayContaining(['PORT', 'HOST', 'LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    expect([...withSchema]).toContain('OPENPAW_MIGRATIONS');
    expect(new Set(composeApps().map(({ service }) => service))).toEqual(new Set(Object.keys(SETTINGS_OF)));
  });

  it("sets no variable that neither a service's settings nor the libraries it runs read, and its settings accept what it sets", () => {
    const unread = composeApps().flatMap(({ app, service }) => {
      const environment = compose.services[app]?.environment ?? {};
      const read = variablesRead(SETTINGS_OF[service], environment);
      const readByLibraries = new Set([...everyService, ...(hasSchema(service) ? withSchema : [])]);
      return Object.keys(environment)
        .filter((name) => !read.has(name) && !readByLibraries.has(name))
        .map((name) => `${app}: ${name}`);
    });
    expect(unread).toEqual([]);
  });
});
