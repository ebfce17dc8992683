import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SEPARATE_LANES, serviceCommand, type ServiceSpec, SERVICES } from './topology.js';

interface ComposeService {
  readonly image?: string;
  readonly build?: string;
  readonly command?: readonly string[];
  readonly environment?: Record<string, string>;
  readonly depends_on?: Record<string, { condition: string }>;
  readonly healthcheck?: { readonly test?: readonly string[]; readonly disable?: boolean };
  readonly restart?: string;
}

const root = join(import.meta.dirname, '../..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;
const apps = [...SERVICES.map((s) => s.name as string), ...SEPARATE_LANES.map((l) => `${l.service}-${l.lane}`)];

describe('docker-compose.yml (validated offline: no Docker engine on CI)', () => {
  it('runs every service and separate lane of deploy/src/topology.ts, plus the infrastructure and the collector', () => {
    expect(Object.keys(services).sort()).toEqual([...apps, 'nats', 'postgres', 'qdrant', 'gcs', 'otel-collector', 'provision'].sort());
  });

  it('every service waits for provisioning, checks readiness, verifies its schema and leaves the streams alone', () => {
    for (const name of apps) {
      const service = services[name] as ComposeService;
      expect({ name, after: service.depends_on?.['provision']?.condition }).toEqual({ name, after: 'service_completed_successfully' });
      expect({ name, health: service.healthcheck?.test?.join(' ') }).toEqual({ name, health: expect.stringContaining('/readyz') });
      expect(service.environment).toMatchObject({ OPENPAW_STREAMS_PROVISION: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' });
      const lane = SEPARATE_LANES.find((l) => `${l.service}-${l.lane}` === name);
      // A service with a schema only verifies it (a service without one is not given the setting: compose-env.spec.ts).
      const hasSchema = SERVICES.find((s) => s.name === (lane?.service ?? name))?.database === true;
      expect({ name, migrations: service.environment?.['OPENPAW_MIGRATIONS'] }).toEqual({ name, migrations: hasSchema ? 'verify' : undefined });
      // As the manifests start it: the same Node flags (the young generation of deploy/src/topology.ts) and entry point.
      expect({ name, command: service.command }).toEqual({ name, command: serviceCommand(lane?.service ?? (name as ServiceSpec['name'])) });
    }
    expect(services['assets-video']?.environment?.['OPENPAW_LANES']).toBe('video');
    // Research legs on their own workers, drained to their end (up to an hour); the main research service keeps the rest.
    expect(services['research-research']?.environment?.['OPENPAW_LANES']).toBe('research');
    expect(services['research']?.environment?.['OPENPAW_LANES']).toBe('critical,papersearch');
  });

  it('provisioning runs once, after NATS and PostgreSQL are healthy, as the streams owner and the migrator', () => {
    const provision = services['provision'] as ComposeService;
    expect(provision.restart).toBe('no');
    expect(provision.depends_on).toEqual({ nats: { condition: 'service_healthy' }, postgres: { condition: 'service_healthy' } });
    expect(provision.command?.join(' ')).toContain('dist/tools/provision.js && node dist/tools/migrate.js');
    expect(provision.environment?.['OPENPAW_STREAMS_PROVISION']).toBe('reconcile');
    for (const infra of ['nats', 'postgres', 'qdrant']) expect(services[infra]?.healthcheck?.test).toBeDefined();
  });

  it('logs every service in as its own PostgreSQL role, as the cluster does; only provision as the owner, creating the roles', () => {
    const provision = services['provision'] as ComposeService;
    expect(provision.environment).toMatchObject({ OPENPAW_DATABASE_URL: 'postgres://openpaw:openpaw@postgres:5432/openpaw', OPENPAW_DATABASE_ROLES: 'per-service' });
    const password = provision.environment?.['OPENPAW_DATABASE_ROLE_PASSWORD'];
    expect(password).toEqual(expect.any(String));
    const serviceOf = (name: string): ServiceSpec | undefined => SERVICES.find((s) => s.name === name);
    const owners = [...SERVICES.map((s) => ({ app: s.name, service: s })), ...SEPARATE_LANES.map((l) => ({ app: `${l.service}-${l.lane}`, service: serviceOf(l.service) }))];
    const urls = owners.map(({ app }) => ({ app, url: services[app]?.environment?.['OPENPAW_DATABASE_URL'] }));
    expect(urls).toEqual(owners.map(({ app, service }) => ({ app, url: service?.database === true ? `postgres://openpaw_${service.name}:${password}@postgres:5432/openpaw` : undefined })));
  });
});

