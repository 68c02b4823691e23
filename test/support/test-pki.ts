import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A small certificate authority made with the `openssl` command in a temporary directory: a root,
 * an intermediate under it, and a second root nobody trusts. Certificates are generated for each
 * test run rather than committed, so their dates are always relative to now (a committed "valid"
 * certificate would expire, a committed "not yet valid" one would become valid).
 */

export type KeyKind = 'rsa2048' | 'ec-p256' | 'rsa1024';

export interface IssuedCertificate {
  /** The certificate file, for `openssl x509 -in`. */
  certPath: string;
  certPem: string;
  keyPem: string;
  /** What a server sends: the certificate, then the intermediates up to (not including) the root. */
  chainPem: string;
}

export interface CertificateRequest {
  commonName: string;
  altNames: string[];
  key: KeyKind;
  notBefore: Date;
  notAfter: Date;
  /** The signature's digest; sha256 unless a test needs an old one. */
  digest?: 'sha256' | 'sha1';
  /** Further lines for the extension file (`1.2.3 = ASN1:...`). */
  extraExtensions?: string[];
}

export interface TestPki {
  /** The trusted root, for the `ca` option / trust store. */
  readonly rootPem: string;
  /** Signed by the intermediate, which the root signed. */
  issue(name: string, request: CertificateRequest): IssuedCertificate;
  /** Signed by a root that is in no trust store. */
  issueUntrusted(name: string, request: CertificateRequest): IssuedCertificate;
  selfSigned(name: string, request: CertificateRequest): IssuedCertificate;
  /** A DER OCSP response saying "good" for a certificate `issue` made, signed by the intermediate (`openssl ocsp`). */
  ocspResponse(certificate: IssuedCertificate): Buffer;
  remove(): void;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** True when the `openssl` command can run; tests that need it skip visibly otherwise. */
export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** openssl ca's -startdate/-enddate form. */
function asn1Time(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

function caSection(name: string, dir: string): string {
  return `[ ${name} ]
dir = ${dir}/${name}
database = $dir/index.txt
new_certs_dir = $dir
serial = $dir/serial
certificate = ${dir}/${name}.pem
private_key = ${dir}/${name}.key
default_md = sha256
policy = policy_any
unique_subject = no
email_in_dn = no
copy_extensions = none
`;
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-pki-'));
  const authorities = ['root_ca', 'intermediate_ca', 'untrusted_ca'];
  for (const name of authorities) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'index.txt'), '');
    // A random 64-bit serial whose first byte has its top bit clear (a positive DER integer).
    const first = (0x10 + ((randomBytes(1)[0] as number) % 0x70)).toString(16);
    writeFileSync(path.join(dir, name, 'serial'), `${first}${randomBytes(7).toString('hex').toUpperCase()}\n`);
  }
  writeFileSync(
    path.join(dir, 'ca.cnf'),
    `[ ca ]
default_ca = intermediate_ca
${authorities.map((name) => caSection(name, dir)).join('\n')}
[ policy_any ]
commonName = supplied
organizationName = optional

[ req ]
distinguished_name = req_dn
[ req_dn ]
`,
  );
  writeFileSync(
    path.join(dir, 'ca.ext'),
    'basicConstraints = critical, CA:TRUE, pathlen:0\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n',
  );

  const newKey = (file: string, kind: KeyKind) =>
    openssl(
      kind === 'rsa2048' || kind === 'rsa1024'
        ? ['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${kind.slice(3)}`, '-out', file]
        : ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file],
      dir,
    );
  const selfSignedRoot = (name: string, subject: string, kind: KeyKind) => {
    newKey(`${name}.key`, kind);
    openssl(
      ['req', '-config', 'ca.cnf', '-x509', '-new', '-key', `${name}.key`, '-subj', subject, '-days', '3650', '-sha256']
        .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'])
        .concat(['-out', `${name}.pem`]),
      dir,
    );
  };
  selfSignedRoot('root_ca', '/CN=netinfo Test Root CA/O=netinfo tests', 'rsa2048');
  selfSignedRoot('untrusted_ca', '/CN=Untrusted Test CA/O=Nobody Trusts Us', 'ec-p256');
  newKey('intermediate_ca.key', 'rsa2048');
  openssl(
    [
      'req',
      '-config',
      'ca.cnf',
      '-new',
      '-key',
      'intermediate_ca.key',
      '-subj',
      '/CN=netinfo Test Issuing CA/O=netinfo tests',
      '-out',
      'intermediate_ca.csr',
    ],
    dir,
  );
  const now = Date.now();
  openssl(
    ['ca', '-batch', '-config', 'ca.cnf', '-name', 'root_ca', '-extfile', 'ca.ext', '-in', 'intermediate_ca.csr']
      .concat([
        '-startdate',
        asn1Time(new Date(now - 86_400_000)),
        '-enddate',
        asn1Time(new Date(now + 3 * 365 * 86_400_000)),
      ])
      .concat(['-notext', '-out', 'intermediate_ca.pem']),
    dir,
  );
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  // One key of each kind serves every leaf: key generation is the slow part.
  newKey('leaf-rsa2048.key', 'rsa2048');
  newKey('leaf-ec-p256.key', 'ec-p256');
  let smallKey = false;

  function sign(name: string, request: CertificateRequest, authority: string | 'self'): IssuedCertificate {
    const keyFile = `leaf-${request.key}.key`;
    // Made on first use: only the weak-key test needs it.
    if (request.key === 'rsa1024' && !smallKey) {
      newKey(keyFile, 'rsa1024');
      smallKey = true;
    }
    const usage = request.key !== 'ec-p256' ? 'digitalSignature, keyEncipherment' : 'digitalSignature';
    const altNames = request.altNames.map((entry) => (/^[\d.]+$|:/.test(entry) ? `IP:${entry}` : `DNS:${entry}`));
    writeFileSync(
      path.join(dir, `${name}.ext`),
      `basicConstraints = CA:FALSE\nkeyUsage = critical, ${usage}\nextendedKeyUsage = serverAuth\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n${
        altNames.length > 0 ? `subjectAltName = ${altNames.join(', ')}\n` : ''
      }${(request.extraExtensions ?? []).map((line) => `${line}\n`).join('')}`,
    );
    openssl(
      [
        'req',
        '-config',
        'ca.cnf',
        '-new',
        '-key',
        keyFile,
        '-subj',
        `/CN=${request.commonName}`,
        '-out',
        `${name}.csr`,
      ],
      dir,
    );
    const signer =
      authority === 'self' ? ['-name', 'intermediate_ca', '-selfsign', '-keyfile', keyFile] : ['-name', authority];
    openssl(
      [
        'ca',
        '-batch',
        '-config',
        'ca.cnf',
        ...signer,
        '-extfile',
        `${name}.ext`,
        '-in',
        `${name}.csr`,
        '-notext',
        '-md',
        request.digest ?? 'sha256',
      ].concat([
        '-startdate',
        asn1Time(request.notBefore),
        '-enddate',
        asn1Time(request.notAfter),
        '-out',
        `${name}.pem`,
      ]),
      dir,
    );
    const certPem = read(`${name}.pem`);
    const intermediates = authority === 'intermediate_ca' ? read('intermediate_ca.pem') : '';
    return {
      certPath: path.join(dir, `${name}.pem`),
      certPem,
      keyPem: read(keyFile),
      chainPem: certPem + intermediates,
    };
  }

  return {
    rootPem: read('root_ca.pem'),
    issue: (name, request) => sign(name, request, 'intermediate_ca'),
    issueUntrusted: (name, request) => sign(name, request, 'untrusted_ca'),
    selfSigned: (name, request) => sign(name, request, 'self'),
    ocspResponse: (certificate) => {
      const request = `${certificate.certPath}.ocsp-request`;
      const response = `${certificate.certPath}.ocsp-response`;
      openssl(
        ['ocsp', '-issuer', 'intermediate_ca.pem', '-cert', certificate.certPath, '-no_nonce', '-reqout', request],
        dir,
      );
      openssl(
        ['ocsp', '-index', 'intermediate_ca/index.txt', '-rsigner', 'intermediate_ca.pem', '-rkey']
          .concat(['intermediate_ca.key', '-CA', 'intermediate_ca.pem', '-reqin', request, '-respout', response])
          .concat(['-ndays', '1']),
        dir,
      );
      return readFileSync(response);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
