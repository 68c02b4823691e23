// `npm run bench:whois-ssl`: what /api/v1/whois and /api/v1/ssl add over doing the same network work
// by hand, against local servers only. Interleaved rounds of:
// - WHOIS: three bare port-43 exchanges along IANA -> registry -> registrar (what `whois` does; the
//   baseline), the uncached API call walking the same chain, and the cached API call;
// - TLS: a bare tls.connect handshake reading the peer certificate (the baseline), and /api/v1/ssl.
import net from 'node:net';
import tls from 'node:tls';
import { formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { recordsHandler, startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { startFakeWhoisNetwork } from '../test/support/fake-whois-server.ts';
import { createTestPki } from '../test/support/test-pki.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const LIMITS = 'public=100000000/100000000';

// Replies in the layouts of IANA, Verisign and MarkMonitor (a few KiB, like the real ones).
const filler = `${'% Terms of use: for information purposes only; no bulk or automated queries.\n'.repeat(40)}`;
const replies: Record<string, string> = {
  'whois.iana.org': `refer:        whois.verisign-grs.com\n\ndomain:       COM\norganisation: VeriSign Global Registry Services\n${filler}`,
  'whois.verisign-grs.com': `   Domain Name: BENCH.COM\n   Registrar WHOIS Server: whois.markmonitor.com\n   Registrar: MarkMonitor Inc.\n   Creation Date: 1997-09-15T04:00:00Z\n   Registry Expiry Date: 2028-09-14T04:00:00Z\n   Name Server: NS1.BENCH.COM\n   DNSSEC: unsigned\n${filler}`,
  'whois.markmonitor.com': `Domain Name: bench.com\nRegistrar WHOIS Server: whois.markmonitor.com\nRegistrar: MarkMonitor, Inc.\nCreation Date: 1997-09-15T07:00:00+0000\nRegistrar Registration Expiration Date: 2028-09-13T07:00:00+0000\nDomain Status: clientTransferProhibited (https://www.icann.org/epp#clientTransferProhibited)\nName Server: ns1.bench.com\n${filler}`,
};
const network = await startFakeWhoisNetwork(
  Object.fromEntries(Object.entries(replies).map(([host, text]) => [host, () => text])),
);

function bareExchange(address: string, port: number, query: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port }, () => socket.write(`${query}\r\n`));
    socket.on('data', () => {});
    socket.on('end', () => resolve());
    socket.on('error', reject);
  });
}

const pki = createTestPki();
const now = Date.now();
const certificate = pki.issue('bench', {
  commonName: 'bench.tls.test',
  altNames: ['bench.tls.test'],
  key: 'ec-p256',
  notBefore: new Date(now - 86_400_000),
  notAfter: new Date(now + 30 * 86_400_000),
});
const tlsServer = tls.createServer({ key: certificate.keyPem, cert: certificate.chainPem });
await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
const tlsPort = (tlsServer.address() as net.AddressInfo).port;
const dns = await startFakeDnsServer(
  recordsHandler([{ type: 'A', name: 'bench.tls.test', ttl: 300, data: '127.0.0.1' }], 'tls.test'),
);

function bareHandshake(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: tlsPort, servername: 'bench.tls.test', ca: [pki.rootPem] },
      () => {
        socket.getPeerX509Certificate();
        socket.destroy();
        resolve();
      },
    );
    socket.on('error', reject);
  });
}

const common = { RATE_LIMITS: LIMITS, ALLOW_PRIVATE_TARGETS: 'true', RDAP_BOOTSTRAP_REFRESH_HOURS: '0' };
const apps = {
  whoisUncached: await buildTestApp(
    {
      ...common,
      DNS_SERVERS: formatServer(network.dns.server),
      WHOIS_SERVER: network.server('whois.iana.org'),
      WHOIS_CACHE_SECONDS: '0',
    },
    { whoisReferralPort: network.port },
  ),
  whoisCached: await buildTestApp(
    { ...common, DNS_SERVERS: formatServer(network.dns.server), WHOIS_SERVER: network.server('whois.iana.org') },
    { whoisReferralPort: network.port },
  ),
  ssl: await buildTestApp(
    { ...common, DNS_SERVERS: formatServer(dns.server), TLS_CHECK_PORT: String(tlsPort) },
    { trustedCertificates: [pki.rootPem] },
  ),
};
const base: Record<string, string> = {};
for (const [name, app] of Object.entries(apps)) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  base[name] = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
}

const keys = ['whoisBare', 'whoisUncached', 'whoisCached', 'tlsBare', 'ssl'] as const;
const timings = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<(typeof keys)[number], number[]>;
async function timed(key: (typeof keys)[number], work: () => Promise<unknown>, keep: boolean) {
  const started = performance.now();
  await work();
  if (keep) timings[key].push(performance.now() - started);
}
const get = async (url: string) => {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
};
for (let round = -30; round < ROUNDS; round++) {
  const keep = round >= 0; // the first rounds warm up JIT, sockets and caches
  await timed(
    'whoisBare',
    async () => {
      for (const host of Object.keys(replies)) await bareExchange(network.addressOf(host), network.port, 'bench.com');
    },
    keep,
  );
  await timed('whoisUncached', () => get(`${base.whoisUncached}/api/v1/whois?target=bench.com`), keep);
  await timed('whoisCached', () => get(`${base.whoisCached}/api/v1/whois?target=bench.com`), keep);
  await timed('tlsBare', bareHandshake, keep);
  await timed('ssl', () => get(`${base.ssl}/api/v1/ssl?host=bench.tls.test`), keep);
}

const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;
const row = (values: number[]) => ({
  'median ms': quantile(values, 0.5).toFixed(3),
  'p99 ms': quantile(values, 0.99).toFixed(3),
});
console.log(`whois and ssl against local servers, ${ROUNDS} interleaved rounds`);
console.table({
  'WHOIS: 3 bare port-43 exchanges (baseline)': row(timings.whoisBare),
  '/api/v1/whois uncached (same 3 servers)': row(timings.whoisUncached),
  '/api/v1/whois cached': row(timings.whoisCached),
  'TLS: bare handshake + peer certificate (baseline)': row(timings.tlsBare),
  '/api/v1/ssl': row(timings.ssl),
});
const added = (key: (typeof keys)[number], baseline: (typeof keys)[number]) =>
  (quantile(timings[key], 0.5) - quantile(timings[baseline], 0.5)).toFixed(3);
console.log(`added at the median: whois ${added('whoisUncached', 'whoisBare')} ms, ssl ${added('ssl', 'tlsBare')} ms`);

for (const app of Object.values(apps)) await app.close();
await network.close();
await dns.close();
await new Promise((resolve) => tlsServer.close(resolve));
pki.remove();
