import { NATS_SETTING_NAMES } from '@openpaw/messaging';

/*
 * TLS between every client and NATS (issue 27; asyncapi `mutualTls`). NATS requires TLS on its client
 * port and a client certificate from the platform's CA; every workload that connects mounts one
 * certificate Secret and names its files in `OPENPAW_NATS_TLS_CA_FILE` / `_CERT_FILE` / `_KEY_FILE`
 * (libs/messaging `NATS_SETTING_NAMES`). The Secrets' keys are cert-manager's (a `kubernetes.io/tls`
 * Secret with `ca.crt`), so a Certificate can issue them; docs/ops/runbook.md, "TLS to NATS".
 */

/** The keys of both certificate Secrets: the CA, the certificate and its private key. */
export const NATS_TLS_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/** Where a workload's pods see the client certificate Secret (`PlatformSettings.secrets.natsTls`). */
export const NATS_CLIENT_TLS_DIR = '/var/run/secrets/openpaw/nats-tls';

/** The client settings, each naming its file in `dir` (the pods' `NATS_CLIENT_TLS_DIR`). */
export function natsClientTlsEnv(dir: string = NATS_CLIENT_TLS_DIR): Record<string, string> {
  return {
    [NATS_SETTING_NAMES.tlsCaFile]: `${dir}/${NATS_TLS_KEYS.ca}`,
    [NATS_SETTING_NAMES.tlsCertFile]: `${dir}/${NATS_TLS_KEYS.cert}`,
    [NATS_SETTING_NAMES.tlsKeyFile]: `${dir}/${NATS_TLS_KEYS.key}`,
  };
}

/** The server's certificate Secret, in the NATS release's namespace (ops or cert-manager create it). */
export const NATS_SERVER_TLS_SECRET = 'openpaw-nats-server-tls';

/** The official chart's `config.nats.tls` values (chart 1.x: it mounts `secretName` at `dir` and watches the files for its reloader). */
export interface NatsChartTlsValues {
  readonly enabled: boolean;
  readonly secretName: string;
  readonly dir: string;
  readonly cert: string;
  readonly key: string;
  /** Merged over the block the chart writes (`cert_file`, `key_file`). */
  readonly merge: Readonly<Record<string, string | number | boolean>>;
}

export function natsChartTlsValues(): NatsChartTlsValues {
  const dir = '/etc/nats-certs/nats';
  return {
    enabled: true,
    secretName: NATS_SERVER_TLS_SECRET,
    dir,
    cert: NATS_TLS_KEYS.cert,
    key: NATS_TLS_KEYS.key,
    // Mutual TLS: only a client certificate from the platform's CA connects (services, and partners
    // issued one); credentials still decide who it is. A handshake slower than 2 s is refused (the default 0.5 s fails on loaded nodes).
    merge: { ca_file: `${dir}/${NATS_TLS_KEYS.ca}`, verify: true, timeout: 2 },
  };
}

/**
 * The `tls` block nats-server gets from these values, as the chart renders it (its
 * `files/config/tls.yaml`: `cert_file`/`key_file` from `dir`, then `merge` over them); `mountedAt`
 * maps the mount directory elsewhere (a test's copy of the Secret).
 */
export function natsServerTlsBlock(values: NatsChartTlsValues, mountedAt: string = values.dir): Record<string, string | number | boolean> {
  const dir = values.dir.replace(/\/$/, '');
  const block: Record<string, string | number | boolean> = { cert_file: `${dir}/${values.cert}`, key_file: `${dir}/${values.key}`, ...values.merge };
  return Object.fromEntries(Object.entries(block).map(([name, value]) => [name, typeof value === 'string' && value.startsWith(`${dir}/`) ? `${mountedAt}${value.slice(dir.length)}` : value]));
}

/** A block in nats-server's config syntax (`name { key: value, … }`, strings quoted). */
export function natsConfBlock(name: string, block: Readonly<Record<string, string | number | boolean>>): string {
  return `${name} { ${Object.entries(block)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
    .join(', ')} }`;
}
