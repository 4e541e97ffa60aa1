import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Certificate {
  keyFile: string;
  certFile: string;
  /** The certificate's PEM: a client that trusts it as its CA really verifies TLS. */
  cert: Buffer;
}

/**
 * A fresh self-signed certificate for 127.0.0.1 and localhost, written into `dir` (openssl): nothing
 * secret is checked in, and clients must really verify TLS against it.
 */
export function selfSignedCertificate(dir: string): Certificate {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  return { keyFile, certFile, cert: readFileSync(certFile) };
}
