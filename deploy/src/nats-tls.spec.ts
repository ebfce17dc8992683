import { NATS_SETTING_NAMES } from '@openpaw/messaging';
import { renderFiles, renderPlatform } from './render.js';
import { NATS_CLIENT_TLS_DIR, NATS_SERVER_TLS_SECRET, NATS_TLS_KEYS, natsChartTlsValues, natsConfBlock, natsServerTlsBlock } from './nats-tls.js';
import { natsValues } from './nats-values.js';
import { DEFAULT_SETTINGS } from './settings.js';
import { podContainers, type SecretValues } from './testing/pod-containers.js';

/** Every Secret the manifests name, each key's value naming where it came from: `secret:<name>/<key>`. */
const markedSecrets: SecretValues = new Proxy(
  {},
  { get: (_target, name) => (typeof name === 'string' ? new Proxy({}, { get: (_t, key) => (typeof key === 'string' ? `secret:${name}/${key}` : undefined) }) : undefined) },
);

const TLS_SETTINGS = [NATS_SETTING_NAMES.tlsCaFile, NATS_SETTING_NAMES.tlsCertFile, NATS_SETTING_NAMES.tlsKeyFile] as const;

describe('TLS to NATS in the manifests', () => {
  const containers = podContainers(renderPlatform(DEFAULT_SETTINGS).platform, markedSecrets);
  /** The containers that connect to NATS: those given a NATS user's credentials. */
  const natsClients = containers.filter((c) => c.env[NATS_SETTING_NAMES.credsFile] !== undefined);

  it('every Deployment and the migrations Job\'s streams step connect to NATS (the set the TLS check covers)', () => {
    const deployments = containers.filter((c) => c.kind === 'Deployment' && c.workload !== 'otel-collector').map((c) => c.workload);
    expect(deployments.length).toBeGreaterThan(9);
    expect(natsClients.map((c) => `${c.workload}/${c.container}`).sort()).toEqual([...deployments.map((d) => `${d}/${containers.find((c) => c.workload === d)?.container ?? ''}`), 'openpaw-migrate/streams'].sort());
  });

  it('every NATS client mounts the client certificate Secret read-only, and its three TLS settings name the CA, certificate and key in it', () => {
    const secret = DEFAULT_SETTINGS.secrets.natsTls;
    for (const client of natsClients) {
      const mount = client.mounts.find((m) => m.path === NATS_CLIENT_TLS_DIR);
      const fileOf = (setting: string): string | undefined => {
        const path = client.env[setting];
        return path === undefined || mount === undefined || !path.startsWith(`${mount.path}/`) ? undefined : mount.files?.[path.slice(mount.path.length + 1)];
      };
      expect({ workload: client.workload, source: mount?.source, readOnly: mount?.readOnly, files: TLS_SETTINGS.map(fileOf) }).toEqual({
        workload: client.workload,
        source: 'secret',
        readOnly: true,
        files: [`secret:${secret}/${NATS_TLS_KEYS.ca}`, `secret:${secret}/${NATS_TLS_KEYS.cert}`, `secret:${secret}/${NATS_TLS_KEYS.key}`],
      });
    }
  });

  it('the Helm chart takes the client certificate Secret\'s name from values', () => {
    const files = renderFiles(DEFAULT_SETTINGS, '0.0.0');
    expect(files['deploy/helm/openpaw/values.yaml']).toContain(`natsTls: ${DEFAULT_SETTINGS.secrets.natsTls}`);
    expect(files['deploy/helm/openpaw/templates/platform.yaml']).toContain('secretName: {{ .Values.secrets.natsTls }}');
    expect(files['deploy/helm/openpaw/templates/platform.yaml']).not.toContain(`secretName: ${DEFAULT_SETTINGS.secrets.natsTls}`);
  });

  it('the NATS chart requires TLS on the client port, from its Secret, and verifies client certificates against the CA', () => {
    const tls = (natsValues() as { config: { nats?: { tls?: unknown } } }).config.nats?.tls;
    expect(tls).toEqual(natsChartTlsValues());
    const values = natsChartTlsValues();
    expect({ enabled: values.enabled, secretName: values.secretName }).toEqual({ enabled: true, secretName: NATS_SERVER_TLS_SECRET });
    // What nats-server gets: every file inside the Secret's mount, clients verified; nothing lets plain TCP in.
    expect(natsServerTlsBlock(values)).toEqual({
      cert_file: `${values.dir}/${NATS_TLS_KEYS.cert}`,
      key_file: `${values.dir}/${NATS_TLS_KEYS.key}`,
      ca_file: `${values.dir}/${NATS_TLS_KEYS.ca}`,
      verify: true,
      timeout: 2,
    });
    expect(JSON.stringify(natsValues())).not.toContain('allow_non_tls');
  });

  it('maps the server\'s mount elsewhere for a test, and writes the block in nats-server\'s syntax', () => {
    const block = natsServerTlsBlock(natsChartTlsValues(), '/tmp/x');
    expect(block).toMatchObject({ cert_file: '/tmp/x/tls.crt', key_file: '/tmp/x/tls.key', ca_file: '/tmp/x/ca.crt' });
    expect(natsConfBlock('tls', { cert_file: '/a b', verify: true, timeout: 2 })).toBe('tls { cert_file: "/a b", verify: true, timeout: 2 }');
  });
});
