import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CachedAnswer, cacheKey, cacheLifetimeSeconds, createMemoryDnsCache } from '../../src/dns/cache.ts';
import type { DnsRecord } from '../../src/dns/records.ts';

const a = (name: string, ttl: number, address = '192.0.2.1'): DnsRecord => ({
  name,
  ttl,
  class: 'IN',
  type: 'A',
  data: address,
});
const cname = (name: string, ttl: number, target: string): DnsRecord => ({
  name,
  ttl,
  class: 'IN',
  type: 'CNAME',
  data: target,
});
const soa = (ttl: number, minimum: number): DnsRecord => ({
  name: 'example.test',
  ttl,
  class: 'IN',
  type: 'SOA',
  data: { mname: 'ns1', rname: 'hm', serial: 1, refresh: 1, retry: 1, expire: 1, minimum },
});
const positive = (...answers: DnsRecord[]): CachedAnswer => ({ rcode: 'NOERROR', answers, authority: [], server: 's' });
const negative = (rcode: 'NOERROR' | 'NXDOMAIN', ...authority: DnsRecord[]): CachedAnswer => ({
  rcode,
  answers: [],
  authority,
  server: 's',
});

function fakeClock(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('cacheLifetimeSeconds', () => {
  it('is the smallest TTL of the answer, CNAMEs included', () => {
    assert.equal(cacheLifetimeSeconds(positive(cname('www', 600, 'web'), a('web', 120), a('web', 300))), 120);
  });
  it('is bounded by the maximum TTL', () => {
    assert.equal(cacheLifetimeSeconds(positive(a('x', 7 * 86_400))), 86_400);
  });
  it('is 0 (not cached) for a TTL of 0', () => {
    assert.equal(cacheLifetimeSeconds(positive(a('x', 0))), 0);
  });
  it('for a negative answer is min(SOA TTL, SOA MINIMUM) per RFC 2308 §5', () => {
    assert.equal(cacheLifetimeSeconds(negative('NXDOMAIN', soa(3600, 60))), 60);
    assert.equal(cacheLifetimeSeconds(negative('NOERROR', soa(30, 60))), 30);
  });
  it('for a negative answer is bounded to 300 s', () => {
    assert.equal(cacheLifetimeSeconds(negative('NXDOMAIN', soa(86_400, 86_400))), 300);
  });
  it('is 0 for a negative answer without SOA', () => {
    assert.equal(cacheLifetimeSeconds(negative('NXDOMAIN')), 0);
  });
});

describe('createMemoryDnsCache', () => {
  it('counts TTLs down by the whole seconds spent in the cache', async () => {
    const clock = fakeClock();
    const cache = createMemoryDnsCache({ now: clock.now });
    await cache.set(cacheKey('www.example.test', 'A'), positive(cname('www', 600, 'web'), a('web', 120)));
    clock.advance(45_700);
    const got = await cache.get(cacheKey('WWW.example.test', 'A'));
    assert.deepEqual(
      got?.answers.map((record) => record.ttl),
      [555, 75],
    );
  });

  it('expires an entry at its smallest TTL', async () => {
    const clock = fakeClock();
    const cache = createMemoryDnsCache({ now: clock.now });
    await cache.set('x|A', positive(a('x', 10)));
    clock.advance(9_999);
    assert.equal((await cache.get('x|A'))?.answers[0]?.ttl, 1);
    clock.advance(1);
    assert.equal(await cache.get('x|A'), undefined);
  });

  it('caches negative answers, counting the SOA TTL down', async () => {
    const clock = fakeClock();
    const cache = createMemoryDnsCache({ now: clock.now });
    await cache.set('gone|A', negative('NXDOMAIN', soa(3600, 60)));
    clock.advance(20_000);
    const got = await cache.get('gone|A');
    assert.equal(got?.rcode, 'NXDOMAIN');
    assert.equal(got?.authority[0]?.ttl, 3580);
    clock.advance(40_000);
    assert.equal(await cache.get('gone|A'), undefined);
  });

  it('evicts the least recently used entry beyond its bound', async () => {
    const cache = createMemoryDnsCache({ maxEntries: 2, now: fakeClock().now });
    await cache.set('one|A', positive(a('one', 60)));
    await cache.set('two|A', positive(a('two', 60)));
    await cache.get('one|A');
    await cache.set('three|A', positive(a('three', 60)));
    assert.ok(await cache.get('one|A'));
    assert.equal(await cache.get('two|A'), undefined);
    assert.ok(await cache.get('three|A'));
  });

  it('does not keep an answer with TTL 0, and a new set replaces the old entry', async () => {
    const cache = createMemoryDnsCache({ now: fakeClock().now });
    await cache.set('x|A', positive(a('x', 60)));
    await cache.set('x|A', positive(a('x', 0)));
    assert.equal(await cache.get('x|A'), undefined);
  });
});
