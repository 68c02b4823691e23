// Local stand-ins for everything the tool pages' API calls reach: one fake DNS server (the DNS
// tool's records, the mail check's domains, the DNSBL zones, the names of the TLS and WHOIS servers, PTR names for
// traceroute), a fake WHOIS server, a TLS server with certificates from a test CA (and an SMTP one with STARTTLS), an HTTP and an HTTPS site, and a fake
// spawner whose ping and traceroute print one line every LINE_GAP_MS (MTR a captured round), so a
// page can be watched growing event by event.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import tls from 'node:tls';
import type { Answer } from 'dns-packet';
import type { AppDeps } from '../../src/app.ts';
import { formatServer } from '../../src/dns/servers.ts';
import { loadCapturedOutputs } from '../support/captured-output.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { createFakeSpawner, type FakeChild } from '../support/fake-spawner.ts';
import { startFakeStarttlsServer } from '../support/fake-starttls-server.ts';
import { startFakeWhoisNetwork } from '../support/fake-whois-server.ts';
import { createTestPki } from '../support/test-pki.ts';

export const LINE_GAP_MS = 400;
const DAY = 86_400_000;

/** A TXT value with no space to break at: the page must wrap it, not widen. */
export const LONG_TXT = `v=spf1 ${'include:_spf-a-very-long-mail-provider-name.example.test,'.repeat(6)}~all`;

export const WHOIS_TEXT = `Domain Name: EXAMPLE.TEST
Registry Domain ID: 2336799_DOMAIN_TEST-VRSN
Registrar: Example Registrar, Inc.
Updated Date: 2024-08-14T07:01:34Z
Creation Date: 1995-08-14T04:00:00Z
Registry Expiry Date: 2030-08-13T04:00:00Z
Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited
Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
Name Server: A.IANA-SERVERS.NET
Name Server: B.IANA-SERVERS.NET
DNSSEC: signedDelegation
URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/${'x'.repeat(180)}
>>> Last update of whois database: 2026-11-22T05:00:00Z <<<
`;

function txt(name: string, text: string): Answer {
  // One TXT record, its text in strings of at most 255 bytes.
  return { type: 'TXT', name, ttl: 300, class: 'IN', data: text.match(/.{1,255}/g) ?? [] };
}

/** A 2048-bit RSA public key as a DKIM record's p= (base64 of its SubjectPublicKeyInfo). */
function dkimKey(): string {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/**
 * The mail check's domains: good.mail.test publishes every part without a problem (DKIM selector
 * s1); bad.mail.test has no MX, an SPF with +all, DMARC p=none, no MTA-STS or TLS-RPT, no DKIM key.
 */
function mailRecords(): Answer[] {
  const good = 'good.mail.test';
  return [
    { type: 'MX', name: good, ttl: 300, class: 'IN', data: { preference: 20, exchange: `mx2.${good}` } },
    { type: 'MX', name: good, ttl: 300, class: 'IN', data: { preference: 10, exchange: `mx1.${good}` } },
    a(`mx1.${good}`, '192.0.2.25'),
    { type: 'AAAA', name: `mx1.${good}`, ttl: 60, class: 'IN', data: '2001:db8::25' },
    a(`mx2.${good}`, '192.0.2.26'),
    txt(good, `v=spf1 mx include:_spf.${good} -all`),
    txt(`_spf.${good}`, 'v=spf1 ip4:192.0.2.0/24 -all'),
    txt(`_dmarc.${good}`, `v=DMARC1; p=reject; rua=mailto:dmarc@${good}`),
    txt(`s1._domainkey.${good}`, `v=DKIM1; k=rsa; p=${dkimKey()}`),
    txt(`_mta-sts.${good}`, 'v=STSv1; id=20261125T0000'),
    txt(`_smtp._tls.${good}`, `v=TLSRPTv1; rua=mailto:tls-reports@${good}`),
    txt('bad.mail.test', 'v=spf1 +all'),
    txt('_dmarc.bad.mail.test', 'v=DMARC1; p=none'),
  ];
}

/** The RRSIG over signed.example.test's A record (ECDSA P-256, key tag 12345). */
const SIGNED_RRSIG: Answer = {
  type: 'RRSIG',
  name: 'signed.example.test',
  ttl: 60,
  class: 'IN',
  data: {
    typeCovered: 'A',
    algorithm: 13,
    labels: 3,
    originalTTL: 60,
    expiration: Date.UTC(2026, 11, 25) / 1000,
    inception: Date.UTC(2026, 10, 25) / 1000,
    keyTag: 12345,
    signersName: 'example.test',
    signature: Buffer.alloc(64, 7),
  },
};

function a(name: string, data: string): Answer {
  return { type: 'A', name, ttl: 60, class: 'IN', data };
}

/** The ping run: replies 1, 2 and 4, request 3 unanswered. */
export const PING_LINES = [
  'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.',
  '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.041 ms',
  '64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.052 ms',
  'no answer yet for icmp_seq=3',
  '64 bytes from 127.0.0.1: icmp_seq=4 ttl=64 time=0.047 ms',
];
const PING_END = `
--- 127.0.0.1 ping statistics ---
4 packets transmitted, 3 received, 25% packet loss, time 3004ms
rtt min/avg/max/mdev = 0.041/0.046/0.052/0.004 ms
`;

/** The trace: a router with a name, a silent hop, a router without one, the destination. */
export const TRACE_LINES = [
  'traceroute to 127.0.0.1 (127.0.0.1), 30 hops max, 60 byte packets',
  ' 1  192.0.2.1  0.047 ms',
  ' 2  *',
  ' 3  198.51.100.7  1.204 ms',
  ' 4  127.0.0.1  0.028 ms',
];

/**
 * The MTR run: `mtr --raw` captured across the test namespaces (test/fixtures/mtr/ipv4-silent-hop,
 * 3 rounds to 203.0.113.2: hop 1 192.0.2.1, hop 2 silent, hop 3 the destination).
 */
export const MTR_CAPTURE = 'ipv4-silent-hop';
export const MTR_TARGET = '203.0.113.2';

/** The capture's raw lines cut into rounds (a round starts where a probe goes out to the first hop, `x 0`). */
function mtrRounds(): string[][] {
  const capture = loadCapturedOutputs('mtr').find((entry) => entry.scenario === MTR_CAPTURE);
  if (!capture) throw new Error(`no mtr capture ${MTR_CAPTURE}`);
  const rounds: string[][] = [];
  for (const line of capture.stdout.split('\n').filter(Boolean)) {
    if (line.startsWith('x 0 ') || rounds.length === 0) rounds.push([]);
    rounds.at(-1)?.push(line);
  }
  return rounds;
}

/** Prints the lines one every LINE_GAP_MS (the first at once), then the end, then exits 0. */
function printSlowly(lines: string[], end: string) {
  return (child: FakeChild) => {
    lines.forEach((line, index) => {
      setTimeout(() => child.stdout(`${line}\n`), index * LINE_GAP_MS).unref();
    });
    setTimeout(() => {
      child.stdout(end);
      child.exit(0);
    }, lines.length * LINE_GAP_MS).unref();
  };
}

export async function startToolFakes() {
  const pki = createTestPki();
  const now = Date.now();
  // Validity ends half a day off a whole day, so days_remaining cannot change while the test runs.
  const valid = pki.issue('valid', {
    commonName: 'valid.tls.test',
    altNames: ['valid.tls.test', 'www.valid.tls.test'],
    key: 'ec-p256',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 90 * DAY + DAY / 2),
  });
  const expired = pki.issue('expired', {
    commonName: 'expired.tls.test',
    altNames: ['expired.tls.test'],
    key: 'rsa2048',
    notBefore: new Date(now - 90 * DAY),
    notAfter: new Date(now - 3 * DAY - DAY / 2),
  });
  const contexts = new Map([
    ['valid.tls.test', tls.createSecureContext({ key: valid.keyPem, cert: valid.chainPem })],
    ['expired.tls.test', tls.createSecureContext({ key: expired.keyPem, cert: expired.chainPem })],
  ]);
  const tlsServer = tls.createServer({
    key: valid.keyPem,
    cert: valid.chainPem,
    SNICallback: (name, callback) => callback(null, contexts.get(name)),
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));

  // SMTP with STARTTLS, serving the valid certificate after the upgrade.
  const smtp = await startFakeStarttlsServer('smtp', 'upgrade', contexts.get('valid.tls.test') as tls.SecureContext);

  // The HTTP check's sites: http://valid.tls.test:<port>/old redirects to
  // https://www.valid.tls.test:<port>/new (HTTP/2 with the valid certificate), which answers 200;
  // /missing is a 404.
  const webSecure = http2.createSecureServer(
    { key: valid.keyPem, cert: valid.chainPem, allowHTTP1: true },
    (request, response) => {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'max-age=60',
        server: 'fake-web',
      });
      if (request.method === 'HEAD') response.end();
      else response.end('<!doctype html><title>new</title>'.padEnd(2048, ' '));
    },
  );
  await new Promise<void>((resolve) => webSecure.listen(0, '127.0.0.1', resolve));
  const securePort = (webSecure.address() as net.AddressInfo).port;
  const web = http.createServer((request, response) => {
    if (request.url === '/old') {
      response.writeHead(301, { location: `https://www.valid.tls.test:${securePort}/new` }).end();
    } else response.writeHead(404, { 'content-type': 'text/plain', server: 'fake-web' }).end('not here');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const webPort = (web.address() as net.AddressInfo).port;

  const whois = await startFakeWhoisNetwork({
    'whois.nic.test': (query) => (query === 'example.test' ? WHOIS_TEXT : 'No match for domain.\n'),
  });

  const records: Answer[] = [
    a('whois.nic.test', whois.addressOf('whois.nic.test')),
    a('valid.tls.test', '127.0.0.1'),
    a('expired.tls.test', '127.0.0.1'),
    a('www.valid.tls.test', '127.0.0.1'),
    // Served the default (valid.tls.test) certificate: a name mismatch.
    a('other.tls.test', '127.0.0.1'),
    a('example.test', '192.0.2.10'),
    a('example.test', '192.0.2.11'),
    { type: 'CNAME', name: 'www.example.test', ttl: 300, class: 'IN', data: 'example.test' },
    { type: 'MX', name: 'example.test', ttl: 3600, class: 'IN', data: { preference: 10, exchange: 'mx.example.test' } },
    { type: 'TXT', name: 'example.test', ttl: 86400, class: 'IN', data: [LONG_TXT.slice(0, 200), LONG_TXT.slice(200)] },
    { type: 'PTR', name: '1.2.0.192.in-addr.arpa', ttl: 60, class: 'IN', data: 'gw.example.test' },
    {
      type: 'CAA',
      name: 'example.test',
      ttl: 3600,
      class: 'IN',
      data: { flags: 0, tag: 'issue', value: 'ca.example.test' },
    },
    ...mailRecords(),
  ];
  const answerRecords = recordsHandler(records, 'test');
  const dns: FakeDnsServer = await startFakeDnsServer((question, context) => {
    const name = question.name.toLowerCase();
    // DNSBL zones: 127.0.0.2 is listed on one list, on none of another, and one list is broken.
    if (name.endsWith('.listed.test')) {
      return question.type === 'TXT'
        ? { answers: [{ type: 'TXT', name: question.name, ttl: 60, class: 'IN', data: ['Listed for testing'] }] }
        : { answers: [a(question.name, '127.0.0.2')] };
    }
    if (name.endsWith('.broken.test') || name === 'servfail.example.test') return { rcode: 'SERVFAIL' };
    // A signed name, validated as a validating resolver would: its A RRset, the RRSIG over it, the AD bit.
    if (name === 'signed.example.test' && question.type === 'A') {
      return { answers: [a(question.name, '192.0.2.53'), SIGNED_RRSIG], authenticData: true };
    }
    return answerRecords(question, context);
  });

  const spawner = createFakeSpawner((child) => {
    // A ping to 127.0.0.9 fails as ping does on a host with no route: a stream that ends in an error event.
    if (child.command === 'ping' && child.args.includes('127.0.0.9')) {
      child.stderr('ping: connect: Network is unreachable\n');
      child.exit(2);
    } else if (child.command === 'ping') printSlowly(PING_LINES, PING_END)(child);
    // MTR: one captured round every LINE_GAP_MS, so the page shows each hop's row change in place.
    else if (child.command === 'mtr')
      printSlowly(
        mtrRounds().map((round) => round.join('\n')),
        '',
      )(child);
    else printSlowly(TRACE_LINES, '')(child);
  });

  const env: Record<string, string> = {
    DNS_SERVERS: formatServer(dns.server),
    WHOIS_SERVER: whois.server('whois.nic.test'),
    TLS_CHECK_PORT: String((tlsServer.address() as net.AddressInfo).port),
    DNSBL_ZONES: 'Listed=listed.test,Clean=clean.test,Broken=broken.test',
    DNSBL_TIMEOUT_MS: '500',
    ALLOW_PRIVATE_TARGETS: 'true',
  };
  const deps: AppDeps = {
    spawner: spawner.spawner,
    trustedCertificates: [pki.rootPem],
    whoisReferralPort: whois.port,
  };
  return {
    env,
    deps,
    webPort,
    securePort,
    smtpPort: smtp.port,
    spawned: spawner.children,
    async close() {
      await new Promise((resolve) => tlsServer.close(resolve));
      await smtp.close();
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
      await new Promise((resolve) => webSecure.close(resolve));
      await whois.close();
      await dns.close();
      pki.remove();
    },
  };
}
