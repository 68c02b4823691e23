import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createResolver } from '../../../src/dns/resolver.ts';
import { createAnswerCache } from '../../../src/ipinfo/answers/answer-cache.ts';
import { createHostnameLookup } from '../../../src/ipinfo/answers/hostname.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../../support/fake-dns-server.ts';

describe('hostname: PTR through the resolver, bounded and remembered', { timeout: 30_000 }, () => {
  let dns: FakeDnsServer;
  before(async () => {
    dns = await startFakeDnsServer((question, context) => {
      if (question.name === '9.2.0.192.in-addr.arpa') return { delayMs: 2000 };
      return recordsHandler(
        [
          { type: 'PTR', name: '20.2.0.192.in-addr.arpa', ttl: 3600, class: 'IN', data: 'host.netinfo.test' },
          {
            type: 'PTR',
            name: '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
            ttl: 3600,
            class: 'IN',
            data: 'v6.netinfo.test',
          },
        ],
        'in-addr.arpa',
      )(question, context);
    });
  });
  after(() => dns.close());

  const resolver = () => createResolver({ servers: [dns.server], timeoutMs: 1000 });

  it('names IPv4 and IPv6 addresses; none when the zone has no record', async () => {
    const lookup = createHostnameLookup({ resolver: resolver(), timeoutMs: 500 });
    assert.equal(await lookup('192.0.2.20'), 'host.netinfo.test');
    assert.equal(await lookup('2001:db8::1'), 'v6.netinfo.test');
    assert.equal(await lookup('192.0.2.21'), undefined);
  });

  it('gives up after the timeout, and does not ask again for a minute', async () => {
    let time = 0;
    const lookup = createHostnameLookup({ resolver: resolver(), timeoutMs: 150, now: () => time });
    const started = performance.now();
    assert.equal(await lookup('192.0.2.9'), undefined);
    const waited = performance.now() - started;
    assert.ok(waited >= 140 && waited < 1000, `waited ${waited} ms`);
    const before = dns.count('9.2.0.192.in-addr.arpa', 'PTR');
    assert.equal(await lookup('192.0.2.9'), undefined);
    assert.equal(dns.count('9.2.0.192.in-addr.arpa', 'PTR'), before, 'remembered: not asked again');
    time += 60_001;
    await lookup('192.0.2.9');
    assert.equal(dns.count('9.2.0.192.in-addr.arpa', 'PTR'), before + 1, 'asked again after a minute');
  });

  it('HOSTNAME_TIMEOUT_MS=0 asks nothing', async () => {
    // Counted at the resolver: a query sent without being waited for would reach the DNS server
    // only after this test had looked.
    let asked = 0;
    const counting = {
      reverse: async () => {
        asked++;
        return 'host.netinfo.test';
      },
    };
    const lookup = createHostnameLookup({ resolver: counting, timeoutMs: 0 });
    assert.equal(await lookup('192.0.2.20'), undefined);
    assert.equal(asked, 0);
  });
});

describe('answer cache', () => {
  it('is valid for one data snapshot and a TTL; evicts by generations', () => {
    let time = 0;
    const cache = createAnswerCache<object>({ maxEntries: 4, ttlMs: 1000, now: () => time });
    const first = {};
    const second = {};
    cache.set('192.0.2.1', first, 'a');
    assert.equal(cache.get('192.0.2.1', first), 'a');
    assert.equal(cache.get('192.0.2.1', second), undefined, 'new data: the old answer is not used');
    time = 1000;
    assert.equal(cache.get('192.0.2.1', first), undefined, 'expired');
    cache.set('192.0.2.1', first, 'a');
    for (const ip of ['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5']) cache.set(ip, first, ip);
    assert.equal(cache.get('192.0.2.5', first), '192.0.2.5');
    assert.equal(cache.get('192.0.2.1', first), undefined, 'two generations of two: the oldest went');
  });
});
