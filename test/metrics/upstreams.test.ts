import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp } from '../support/app.ts';
import { startFakeDnsServer } from '../support/fake-dns-server.ts';
import { closedPort, startFakeWhoisNetwork } from '../support/fake-whois-server.ts';
import { freePort } from '../support/free-port.ts';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

test('upstreams: a WHOIS exchange and one that times out, the whois cache, a refused TLS check', async (t) => {
  const network = await startFakeWhoisNetwork({
    'whois.iana.org': (query) => (query === 'example.com' ? 'domain: EXAMPLE.COM\n' : { hang: true }),
  });
  t.after(() => network.close());
  const metricsPort = await freePort();
  const app = await buildTestApp(
    {
      METRICS_PORT: String(metricsPort),
      WHOIS_SERVER: network.server('whois.iana.org'),
      DNS_SERVERS: `${network.dns.server.host}:${network.dns.server.port}`,
      ALLOW_PRIVATE_TARGETS: 'true',
      WHOIS_TIMEOUT_MS: '300',
      RATE_LIMITS: 'public=1000/1000',
    },
    { whoisReferralPort: network.port },
  );
  t.after(() => app.close());
  const whois = (target: string) => app.inject(`/api/v1/whois?target=${encodeURIComponent(target)}`);
  assert.equal((await whois('example.com')).statusCode, 200);
  assert.equal((await whois('example.com')).statusCode, 200, 'from the cache');
  await whois('example.net'); // the server never answers
  const refused = await closedPort();
  assert.equal((await app.inject(`/api/v1/ssl?host=127.0.0.1:${refused}`)).statusCode, 502);

  const text = await scrape(metricsPort);
  assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="whois",outcome="ok"}'), 1);
  assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="whois",outcome="timeout"}'), 1);
  assert.equal(sample(text, 'netinfo_cache_requests_total{cache="whois",result="hit"}'), 1);
  assert.equal(sample(text, 'netinfo_cache_requests_total{cache="whois",result="miss"}'), 2);
  assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="tls",outcome="error"}'), 1);
  assert.equal(sample(text, 'netinfo_upstream_duration_seconds_count{upstream="tls"}'), 1);
});

test('upstreams: DNSBL questions to a DNS server that never answers are timeouts, then a cached report', async (t) => {
  const silent = await startFakeDnsServer(() => 'drop');
  t.after(() => silent.close());
  const metricsPort = await freePort();
  const app = await buildTestApp({
    METRICS_PORT: String(metricsPort),
    DNS_SERVERS: formatServer(silent.server),
    DNS_TIMEOUT_MS: '50',
    DNSBL_ZONES: 'One=zen.example.test,Two=bl.example.test',
    DNSBL_TIMEOUT_MS: '500',
  });
  t.after(() => app.close());
  const response = await app.inject('/api/v1/blacklist?ip=192.0.2.1');
  const text = await scrape(metricsPort);
  // Each list is asked for A and TXT: two lists, four questions, all unanswered.
  assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="dnsbl",outcome="timeout"}'), 4, response.body);
  assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="dnsbl",outcome="ok"}'), 0);
  assert.equal(sample(text, 'netinfo_cache_requests_total{cache="dnsbl",result="miss"}'), 1);
  // Asked again: the report comes from the blacklist cache, and no list is asked.
  await app.inject('/api/v1/blacklist?ip=192.0.2.1');
  const again = await scrape(metricsPort);
  assert.equal(sample(again, 'netinfo_cache_requests_total{cache="dnsbl",result="hit"}'), 1);
  assert.equal(sample(again, 'netinfo_upstream_requests_total{upstream="dnsbl",outcome="timeout"}'), 4);
});
