import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { interpretDnsblOutcome } from '../../src/blacklist/interpret.ts';
import { DEFAULT_DNSBLS, dnsblQueryName, hideZoneKeys, parseDnsblZones } from '../../src/blacklist/lists.ts';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, soaRecord, startFakeDnsServer } from '../support/fake-dns-server.ts';

describe('interpretDnsblOutcome', () => {
  const answer = (...addresses: string[]) => ({ kind: 'answer' as const, rcode: 'NOERROR' as const, addresses });
  const cases: [why: string, outcome: Parameters<typeof interpretDnsblOutcome>[0], status: string][] = [
    ['NXDOMAIN is not listed', { kind: 'answer', rcode: 'NXDOMAIN', addresses: [] }, 'not_listed'],
    ['a name without an A record is not listed', answer(), 'not_listed'],
    ['127.0.0.2 is the classic listing', answer('127.0.0.2'), 'listed'],
    ['several listing codes are one listing', answer('127.0.0.4', '127.0.0.10'), 'listed'],
    ['Spamhaus refuses public resolvers with 127.255.255.254', answer('127.255.255.254'), 'error'],
    ['Spamhaus rate limit 127.255.255.255', answer('127.255.255.255'), 'error'],
    ['Spamhaus bad DQS key 127.255.255.252', answer('127.255.255.252'), 'error'],
    ['any other 127.255.255.x is an error code', answer('127.255.255.253'), 'error'],
    ['RFC 5782: 127.0.0.1 is never a listing', answer('127.0.0.1'), 'error'],
    ['an answer outside 127/8 is a rewriting resolver', answer('198.51.100.1'), 'error'],
    ['a refusal among listing codes still makes it an error', answer('127.0.0.2', '127.255.255.254'), 'error'],
    ['a failed query is an error', { kind: 'failure', message: 'timeout' }, 'error'],
  ];
  for (const [why, outcome, status] of cases) {
    it(why, () => assert.equal(interpretDnsblOutcome(outcome).status, status));
  }
});

describe('lists', () => {
  it('has eight distinct default zones', () => {
    assert.equal(DEFAULT_DNSBLS.length, 8);
    assert.equal(new Set(DEFAULT_DNSBLS.map((list) => list.zone)).size, 8);
  });
  it('builds the reversed query name', () => {
    assert.equal(dnsblQueryName('192.0.2.1', 'zen.spamhaus.org'), '1.2.0.192.zen.spamhaus.org');
  });
  it('parses DNSBL_ZONES and names bad entries', () => {
    assert.deepEqual(parseDnsblZones('Mine=bl.example.test., Other=x.test,'), [
      { name: 'Mine', zone: 'bl.example.test', shownZone: 'bl.example.test' },
      { name: 'Other', zone: 'x.test', shownZone: 'x.test' },
    ]);
    assert.throws(() => parseDnsblZones('nozone'), /"nozone" is not of the form name=zone/);
    assert.throws(() => parseDnsblZones('A=bad zone.test'), /"A=bad zone.test"/);
    assert.throws(() => parseDnsblZones('A=x.test,B=x.test'), /the zone x\.test is listed twice/);
  });
  it('hides an access key in a zone wherever the zone is shown', () => {
    const key = 'abcdefghij0123456789klmnop'; // 26 characters, as a Spamhaus DQS key
    const [dqs] = parseDnsblZones(`Spamhaus ZEN=${key}.zen.dq.spamhaus.net`);
    assert.equal(dqs?.zone, `${key}.zen.dq.spamhaus.net`, 'queried with the key');
    assert.equal(dqs?.shownZone, '[key].zen.dq.spamhaus.net');
    assert.equal(hideZoneKeys('dnsbl-1.uceprotect.net'), 'dnsbl-1.uceprotect.net');
    assert.equal(hideZoneKeys(`x.${'f'.repeat(32)}.combined.mail.abusix.zone`), 'x.[key].combined.mail.abusix.zone');
    // A malformed entry is quoted without its key.
    assert.throws(
      () => parseDnsblZones(`Spamhaus=${key}.zen.dq.spamhaus.net bad`),
      (error: Error) => !error.message.includes(key) && /\[key\]/.test(error.message),
    );
  });
});

const ZONES = {
  listed: 'listed.test',
  clean: 'clean.test',
  refusing: 'refusing.test',
  slow: 'slow.test',
  servfail: 'servfail.test',
  hijacked: 'hijacked.test',
  multi: 'multi.test',
  rfc: 'rfc.test',
};

function a(name: string, data: string): Answer {
  return { type: 'A', name, ttl: 60, class: 'IN', data };
}

describe('GET /api/v1/blacklist', () => {
  let dns: FakeDnsServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;

  before(async () => {
    dns = await startFakeDnsServer((question) => {
      const zone = question.name
        .split('.')
        .slice(4)
        .join('.')
        .replace(/^[a-z0-9]{20,}\./, '');
      const isTxt = question.type === 'TXT';
      switch (zone) {
        case ZONES.listed:
          return isTxt
            ? {
                answers: [
                  { type: 'TXT', name: question.name, ttl: 60, class: 'IN', data: ['Listed: ', 'see example'] },
                ],
              }
            : { answers: [a(question.name, '127.0.0.2')] };
        case ZONES.refusing:
          return { answers: isTxt ? [] : [a(question.name, '127.255.255.254')] };
        case ZONES.slow:
          return 'drop';
        case 'silent-a.test':
        case 'silent-b.test':
        case 'silent-c.test':
        case 'silent-d.test':
          return 'drop';
        case ZONES.servfail:
          return { rcode: 'SERVFAIL' };
        case ZONES.hijacked:
          return { answers: isTxt ? [] : [a(question.name, '198.51.100.1')] };
        case ZONES.multi:
          return { answers: isTxt ? [] : [a(question.name, '127.0.0.4'), a(question.name, '127.0.0.10')] };
        case ZONES.rfc:
          return { answers: isTxt ? [] : [a(question.name, '127.0.0.1')] };
        default:
          return { rcode: 'NXDOMAIN', authorities: [soaRecord(zone)] };
      }
    });
    app = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_TIMEOUT_MS: '200',
      DNSBL_ZONES: Object.entries(ZONES)
        .map(([name, zone]) => `${name}=${zone}`)
        .join(','),
    });
  });
  after(async () => {
    await app.close();
    await dns.close();
  });

  it('reports each list honestly: listed, not listed, or error, with codes and reasons', async () => {
    const response = await app.inject({ url: '/api/v1/blacklist?ip=127.0.0.2' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    const byName = Object.fromEntries(body.results.map((result: { name: string }) => [result.name, result]));
    assert.deepEqual(Object.fromEntries(Object.keys(ZONES).map((name) => [name, byName[name].status])), {
      listed: 'listed',
      clean: 'not_listed',
      refusing: 'error',
      slow: 'error',
      servfail: 'error',
      hijacked: 'error',
      multi: 'listed',
      rfc: 'error',
    });
    assert.equal(byName.listed.reason, 'Listed: see example');
    assert.deepEqual(byName.listed.return_codes, ['127.0.0.2']);
    assert.deepEqual(byName.multi.return_codes, ['127.0.0.4', '127.0.0.10']);
    assert.equal(byName.clean.reason, null);
    assert.match(byName.refusing.error, /public or open resolvers/);
    assert.match(byName.slow.error, /slow\.test: no DNS server answered in time/);
    assert.match(byName.servfail.error, /SERVFAIL/);
    assert.match(byName.hijacked.error, /outside 127\.0\.0\.0\/8/);
    assert.equal(byName.listed.listed, true);
    assert.equal(byName.refusing.listed, false);
    assert.deepEqual(
      [body.ip, body.total, body.listed, body.errors, body.complete, body.clean],
      ['127.0.0.2', 8, 2, 5, false, false],
    );
  });

  it('never shows a key-bearing zone with its key, in results or in errors', async () => {
    const key = 'abcdefghij0123456789klmnop';
    const keyed = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_TIMEOUT_MS: '200',
      // Served by the fake DNS server: not answering (an error that names the zone).
      DNSBL_ZONES: `Spamhaus ZEN=${key}.silent-a.test`,
    });
    try {
      const response = await keyed.inject({ url: '/api/v1/blacklist?ip=192.0.2.60' });
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes(key), response.body);
      const [result] = response.json().results;
      assert.equal(result.zone, '[key].silent-a.test');
      assert.match(result.error, /^\[key\]\.silent-a\.test: no DNS server answered in time/);
    } finally {
      await keyed.close();
    }
  });

  it('asks the lists in parallel: four silent lists cost one time-out, not four', async () => {
    const silent = ['a', 'b', 'c', 'd'].map((name) => `${name}=silent-${name}.test`).join(',');
    const parallel = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_TIMEOUT_MS: '300',
      DNSBL_ZONES: silent,
    });
    try {
      const started = Date.now();
      const body = (await parallel.inject({ url: '/api/v1/blacklist?ip=192.0.2.50' })).json();
      const elapsed = Date.now() - started;
      assert.deepEqual([body.total, body.errors], [4, 4]);
      // One after the other they would take at least 4 x 300 ms.
      assert.ok(elapsed < 1000, `took ${elapsed} ms`);
    } finally {
      await parallel.close();
    }
  });

  it('regression (issue 18): is never clean while a list timed out, and says the report is incomplete', async () => {
    const oneSilent = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_TIMEOUT_MS: '200',
      // Two lists answer NXDOMAIN (not listed), one never answers.
      DNSBL_ZONES: 'clean=clean.test,other=other-clean.test,slow=slow.test',
    });
    try {
      const body = (await oneSilent.inject({ url: '/api/v1/blacklist?ip=192.0.2.70' })).json();
      assert.deepEqual(
        body.results.map((result: { status: string }) => result.status),
        ['not_listed', 'not_listed', 'error'],
      );
      assert.deepEqual([body.listed, body.errors, body.complete, body.clean], [0, 1, false, false]);
    } finally {
      await oneSilent.close();
    }
    const allAnswer = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_ZONES: 'clean=clean.test,other=other-clean.test',
    });
    try {
      const body = (await allAnswer.inject({ url: '/api/v1/blacklist?ip=192.0.2.71' })).json();
      assert.deepEqual([body.listed, body.errors, body.complete, body.clean], [0, 0, true, true]);
    } finally {
      await allAnswer.close();
    }
  });

  it('reuses a report and says so', async () => {
    const first = (await app.inject({ url: '/api/v1/blacklist?ip=192.0.2.99' })).json();
    const second = (await app.inject({ url: '/api/v1/blacklist?ip=192.0.2.99' })).json();
    assert.equal(first.cached, false);
    assert.equal(second.cached, true);
    assert.deepEqual(second.results, first.results);
  });

  it('costs one request per 10 DNS questions asked, at least 1: 16 for the default eight lists cost 2 (issue 28, item 11)', async () => {
    const counted = await buildTestApp({ DNS_SERVERS: formatServer(dns.server), RATE_LIMITS: 'public=100/500' });
    try {
      const asked = dns.queries.length;
      const first = await counted.inject({ url: '/api/v1/blacklist?ip=192.0.2.80' });
      assert.equal(dns.queries.length - asked, 16, 'an A and a TXT question for each of the eight lists');
      assert.equal(first.headers['x-ratelimit-remaining'], '98');
      const reused = await counted.inject({ url: '/api/v1/blacklist?ip=192.0.2.80' });
      assert.equal(reused.json().cached, true);
      assert.equal(reused.headers['x-ratelimit-remaining'], '97', 'a reused report asks nothing and costs 1');
    } finally {
      await counted.close();
    }
    const fewLists = await buildTestApp({
      DNS_SERVERS: formatServer(dns.server),
      DNSBL_ZONES: 'clean=clean.test,other=other-clean.test',
    });
    try {
      const response = await fewLists.inject({ url: '/api/v1/blacklist?ip=192.0.2.81' });
      assert.equal(response.headers['x-ratelimit-remaining'], '99', 'four questions cost the minimum, 1');
    } finally {
      await fewLists.close();
    }
  });

  it('refuses IPv6 and anything that is not an IPv4 address', async () => {
    const v6 = await app.inject({ url: '/api/v1/blacklist?ip=2001:db8::1' });
    assert.equal(v6.statusCode, 400);
    assert.match(v6.json().error, /IPv6 is not supported by these lists/);
    for (const bad of ['1.2.3', '256.1.1.1', 'example.com', '01.2.3.4', '']) {
      const response = await app.inject({ url: `/api/v1/blacklist?ip=${encodeURIComponent(bad)}` });
      assert.equal(response.statusCode, 400, bad);
      assert.match(response.json().error, /'ip'/);
    }
  });
});
