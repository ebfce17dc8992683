import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate and its private key, as files and as the PEM text a Secret would hold. */
export interface IssuedCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

/** A throwaway certificate authority (openssl, P-256, one day) that issues certificates for 127.0.0.1. */
export interface TestCertificateAuthority {
  readonly caFile: string;
  /** The CA certificate's PEM text (a Secret's `ca.crt`). */
  readonly ca: string;
  /** A certificate for `commonName` with 127.0.0.1, `localhost` and `dnsNames` as its names, signed by this CA. */
  issue(commonName: string, dnsNames?: readonly string[]): IssuedCertificate;
}

/** Runs openssl with these arguments in `dir`, throwing with its output when it fails. */
function openssl(dir: string, args: readonly string[]): void {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr}`);
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** A CA whose files are `<name>-ca.pem`/`.key` in `dir`; its certificates `<cn>.pem`/`.key` there too. */
export function testCertificateAuthority(dir: string, name: string): TestCertificateAuthority {
  openssl(dir, ['req', '-x509', ...P256, '-days', '1', '-subj', `/CN=${name} CA`, '-keyout', `${name}-ca.key`, '-out', `${name}-ca.pem`]);
  const caFile = join(dir, `${name}-ca.pem`);
  return {
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    issue: (commonName, dnsNames = []) => {
      openssl(dir, ['req', ...P256, '-subj', `/CN=${commonName}`, '-keyout', `${commonName}.key`, '-out', `${commonName}.csr`]);
      writeFileSync(join(dir, `${commonName}.ext`), `subjectAltName = ${['IP:127.0.0.1', 'DNS:localhost', ...dnsNames.map((dns) => `DNS:${dns}`)].join(', ')}\n`);
      openssl(dir, ['x509', '-req', '-in', `${commonName}.csr`, '-CA', `${name}-ca.pem`, '-CAkey', `${name}-ca.key`, '-CAcreateserial', '-days', '1', '-extfile', `${commonName}.ext`, '-out', `${commonName}.pem`]);
      const certFile = join(dir, `${commonName}.pem`);
      const keyFile = join(dir, `${commonName}.key`);
      return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    },
  };
}
