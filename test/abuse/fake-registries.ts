import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { AppDeps } from '../../src/app.ts';
import { formatServer } from '../../src/dns/servers.ts';
import type { BootstrapSnapshot } from '../../src/whois/rdap/bootstrap.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { type FakeHttpReply, type FakeHttpServer, startFakeHttpServer } from '../support/fake-http-server.ts';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'abuse');
const REGISTRY_HOSTS = ['rdap.db.ripe.net', 'rdap.arin.net', 'rdap.apnic.net', 'rdap.lacnic.net', 'rdap.afrinic.net'];

export interface FakeRegistries {
  /** The settings and deps an app needs to ask these fakes and nothing else. */
  env: Record<string, string>;
  deps: Pick<AppDeps, 'rdapPorts' | 'rdapBootstrap'>;
  /** A registry's RDAP base URL on the fake: `base('rdap.arin.net', '/registry/')`. */
  base(host: string, prefix?: string): string;
  /** How many requests asked this path. */
  asked(requestPath: string): number;
  readonly http: FakeHttpServer;
  /** Connections the listener on 127.0.0.2 (named by a redirect) received. */
  elsewhereConnections(): number;
  close(): Promise<void>;
}

/**
 * The five registries' RDAP host names pointed at 127.0.0.1 by a fake DNS server, one local HTTP
 * server answering for all of them with the registry-shaped fixtures (their real paths: RIPE and
 * APNIC at /, ARIN at /registry/, LACNIC and AFRINIC at /rdap/), and a listener on 127.0.0.2 that
 * ARIN's answer about 9.9.9.9 redirects to.
 */
export async function startFakeRegistries(): Promise<FakeRegistries> {
  let connections = 0;
  const elsewhere = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
  const elsewherePort = (elsewhere.address() as AddressInfo).port;
  const dns: FakeDnsServer = await startFakeDnsServer(
    recordsHandler(
      [
        ...REGISTRY_HOSTS.map((name) => ({ type: 'A' as const, name, ttl: 300, data: '127.0.0.1' })),
        { type: 'A', name: 'rdap.elsewhere.test', ttl: 300, data: '127.0.0.2' },
      ],
      'net',
    ),
  );
  let port = 0;
  const base = (host: string, prefix = '/') => `http://${host}:${port}${prefix}`;
  // The fixtures' links name the registries' real HTTPS servers: here they lead to the fake.
  const served = (scenario: string): FakeHttpReply => {
    let body = readFileSync(path.join(FIXTURES, `${scenario}.json`), 'utf8');
    for (const host of REGISTRY_HOSTS) body = body.replaceAll(`https://${host}/`, base(host));
    return { body: JSON.parse(body) };
  };
  const http = await startFakeHttpServer((requestPath) => {
    switch (requestPath) {
      case '/ip/193.0.6.139':
      case '/ip/2001:67c:2e8:22::c100:68b':
      case '/ip/194.0.0.1':
        return served('ripe-top-level');
      case '/registry/ip/8.8.8.8':
      case '/registry/ip/8.8.4.4':
        return served('arin-nested');
      case '/registry/ip/12.34.56.78':
        return served('arin-reassigned-no-abuse');
      case '/registry/ip/12.0.0.0/8':
        return served('arin-parent');
      // ARIN answers for RIPE space by redirecting to RIPE's server.
      case '/registry/ip/194.0.0.1':
        return { status: 301, headers: { location: `${base('rdap.db.ripe.net')}ip/194.0.0.1` } };
      case '/registry/ip/9.9.9.9':
        return { status: 302, headers: { location: `http://rdap.elsewhere.test:${elsewherePort}/ip/9.9.9.9` } };
      case '/ip/1.1.1.1':
        return served('apnic-irt');
      case '/rdap/ip/177.1.1.1':
        return { status: 500, body: 'Internal Server Error' };
      case '/rdap/ip/41.1.1.1':
        return served('afrinic-no-abuse');
      case '/rdap/ip/41.2.2.2':
        return { ...served('afrinic-no-abuse'), delayMs: 1500 };
      case '/rdap/ip/41.3.3.3':
        return {
          body: '<html><body>Service temporarily unavailable</body></html>',
          headers: { 'content-type': 'text/html' },
        };
      default:
        return { status: 404, body: { errorCode: 404, title: 'Not Found' } };
    }
  });
  port = http.port;
  const snapshot: BootstrapSnapshot = {
    source: 'test',
    retrieved: '2026-11-01T00:00:00Z',
    dns: { services: [] },
    ipv4: {
      services: [
        [['193.0.0.0/8'], [base('rdap.db.ripe.net')]],
        [['8.0.0.0/8', '9.0.0.0/8', '12.0.0.0/8', '194.0.0.0/8'], [base('rdap.arin.net', '/registry/')]],
        [['1.0.0.0/8'], [base('rdap.apnic.net')]],
        [['177.0.0.0/8'], [base('rdap.lacnic.net', '/rdap/')]],
        [['41.0.0.0/8'], [base('rdap.afrinic.net', '/rdap/')]],
      ],
    },
    ipv6: { services: [[['2001:600::/23'], [base('rdap.db.ripe.net')]]] },
  };
  return {
    env: {
      DNS_SERVERS: formatServer(dns.server),
      // Loopback is refused by default; the fakes' address is opened, and nothing else: 127.0.0.2
      // stays refused as under the default policy.
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RDAP_BOOTSTRAP_URL: 'off',
      WHOIS_TIMEOUT_MS: '500',
    },
    deps: { rdapPorts: [http.port, elsewherePort], rdapBootstrap: snapshot },
    base,
    asked: (requestPath) => http.requests.filter((request) => request.path === requestPath).length,
    http,
    elsewhereConnections: () => connections,
    async close() {
      await http.close();
      await dns.close();
      await new Promise((resolve) => elsewhere.close(resolve));
    },
  };
}
