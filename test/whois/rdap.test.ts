import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import {
  type BootstrapSnapshot,
  checkBootstrapFile,
  indexBootstrap,
  parseAsnRange,
} from '../../src/whois/rdap/bootstrap.ts';
import {
  createRdapBootstrapStore,
  loadBootstrapSnapshot,
  REFRESH_RETRY_MS,
  type RefreshOutcome,
} from '../../src/whois/rdap/bootstrap-store.ts';
import {
  eppStatus,
  type RdapObject,
  recordFromRdapAutnum,
  recordFromRdapDomain,
  recordFromRdapNetwork,
} from '../../src/whois/rdap/to-record.ts';
import { manualClock } from '../support/app.ts';

const rdapFixture = (name: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'fixtures', 'rdap', name), 'utf8'));

const snapshot = (services: [string[], string[]][], ipv4: [string[], string[]][] = []): BootstrapSnapshot => ({
  source: 'test',
  retrieved: '2026-11-01T00:00:00Z',
  dns: { services },
  ipv4: { services: ipv4 },
  ipv6: null,
});

test('the shipped snapshot loads, says where it came from, and knows the big registries', () => {
  const shipped = loadBootstrapSnapshot();
  assert.match(shipped.source, /freewhois@\d+\.\d+\.\d+/);
  assert.ok(!Number.isNaN(Date.parse(shipped.retrieved)));
  const index = indexBootstrap(shipped);
  assert.ok(index.counts.dns > 1000, `${index.counts.dns} TLDs`);
  assert.deepEqual(index.forDomain('example.com'), ['https://rdap.verisign.com/com/v1/']);
  // Every URL in the file is an http(s) base URL.
  for (const [, urls] of shipped.dns.services) {
    for (const url of urls) assert.match(url, /^https?:\/\/[^/]+\/(?:.*\/)?$/, url);
  }
});

test('bootstrap index: longest label suffix, HTTPS first, longest address prefix', () => {
  const index = indexBootstrap(
    snapshot(
      [
        [['uk'], ['http://rdap.uk.example/', 'https://rdap.uk.example/']],
        [['co.uk'], ['https://rdap.co-uk.example/base']],
        [
          ['test', 'EXAMPLE'],
          ['ftp://bad.example/', 'https://rdap.test.example/'],
        ],
      ],
      [
        [['198.51.0.0/16'], ['https://wide.example/']],
        [['198.51.100.0/24'], ['https://narrow.example/']],
      ],
    ),
  );
  assert.deepEqual(index.forDomain('a.b.uk'), ['https://rdap.uk.example/', 'http://rdap.uk.example/']);
  assert.deepEqual(index.forDomain('shop.co.uk'), ['https://rdap.co-uk.example/base/']);
  assert.deepEqual(index.forDomain('x.example.'), ['https://rdap.test.example/']);
  assert.deepEqual(index.forDomain('x.invalid'), []);
  assert.deepEqual(index.forIp('198.51.100.7'), ['https://narrow.example/']);
  assert.deepEqual(index.forIp('::ffff:198.51.7.1'), ['https://wide.example/']);
  assert.deepEqual(index.forIp('192.0.2.1'), []);
  assert.throws(() => checkBootstrapFile({ services: [['com', 'https://x/']] }, 'dns.json'), /service 0/);
});

test('bootstrap index: AS numbers by the ranges of asn.json (issue 18)', async () => {
  const asnFile = {
    services: [
      [['1-1876', '1902-2042'], ['https://rdap.arin.example/registry/']],
      [['15169'], ['https://one.example']],
      [['bad', '90000-80000', '4294967296'], ['https://never.example/']],
    ] as [string[], string[]][],
  };
  const index = indexBootstrap({ ...snapshot([]), asn: asnFile });
  assert.deepEqual(index.forAsn(1), ['https://rdap.arin.example/registry/']);
  assert.deepEqual(index.forAsn(1876), ['https://rdap.arin.example/registry/']);
  assert.deepEqual(index.forAsn(1877), []);
  assert.deepEqual(index.forAsn(2000), ['https://rdap.arin.example/registry/']);
  assert.deepEqual(index.forAsn(15169), ['https://one.example/']);
  assert.deepEqual(index.forAsn(85000), [], 'malformed and reversed ranges are skipped');
  assert.equal(index.counts.asn, 3);
  assert.deepEqual(indexBootstrap(snapshot([])).forAsn(15169), [], 'a snapshot without asn.json knows no AS');
  assert.deepEqual(['64512-65534', '15169', ' 7 ', '1-', '-1', '0x10', '1.5'].map(parseAsnRange), [
    { first: 64512, last: 65534 },
    { first: 15169, last: 15169 },
    { first: 7, last: 7 },
    null,
    null,
    null,
    null,
  ]);
  // The store asks for asn.json with the other registries and serves AS numbers from it.
  const store = createRdapBootstrapStore({
    snapshot: snapshot([[['com'], ['https://old.example/']]]),
    refreshUrl: 'https://mirror.example/rdap/',
    refreshIntervalMs: 24 * 3_600_000,
    missWaitMs: 5000,
    now: manualClock('2026-11-10T00:00:00Z').now,
    fetchText: async (url) => {
      if (url.endsWith('dns.json')) return JSON.stringify({ services: [[['com'], ['https://new.example/']]] });
      if (url.endsWith('asn.json')) return JSON.stringify(asnFile);
      throw new Error('HTTP 404');
    },
  });
  assert.deepEqual(await store.asnServers(15169), ['https://one.example/']);
});

test('the store refreshes stale data in the background, and waits for a refresh only on a miss', async () => {
  const clock = manualClock('2026-11-10T00:00:00Z');
  const fetched: string[] = [];
  const outcomes: RefreshOutcome[] = [];
  let fail = false;
  const store = createRdapBootstrapStore({
    snapshot: snapshot([[['com'], ['https://old.example/']]]),
    refreshUrl: 'https://mirror.example/rdap',
    refreshIntervalMs: 24 * 3_600_000,
    missWaitMs: 5000,
    now: clock.now,
    onRefresh: (outcome) => outcomes.push(outcome),
    fetchText: async (url) => {
      fetched.push(url);
      if (fail) throw new Error('HTTP 503');
      if (url.endsWith('dns.json')) return JSON.stringify({ services: [[['com', 'new'], ['https://new.example/']]] });
      throw new Error('HTTP 404');
    },
  });
  // Stale (retrieved nine days ago): the answer comes from the data in hand, the refresh runs behind it.
  assert.deepEqual(await store.domainServers('a.com'), ['https://old.example/']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, [
    'https://mirror.example/rdap/dns.json',
    'https://mirror.example/rdap/ipv4.json',
    'https://mirror.example/rdap/ipv6.json',
    'https://mirror.example/rdap/asn.json',
  ]);
  assert.deepEqual(await store.domainServers('a.com'), ['https://new.example/']);
  assert.equal(store.current().retrieved, '2026-11-10T00:00:00.000Z');
  assert.deepEqual(outcomes[0], {
    ok: true,
    source: 'https://mirror.example/rdap/',
    counts: { dns: 2, ipv4: 0, ipv6: 0, asn: 0 },
  });

  // Fresh data and a miss: no refresh so soon after the last one...
  assert.deepEqual(await store.domainServers('a.unknown'), []);
  assert.equal(fetched.length, 4);
  // ... then one, waited for; then no other until REFRESH_RETRY_MS passes.
  fail = true;
  clock.advance(REFRESH_RETRY_MS);
  assert.deepEqual(await store.domainServers('a.unknown'), []);
  assert.equal(fetched.length, 8);
  assert.equal(outcomes.at(-1)?.ok, false);
  assert.deepEqual(await store.domainServers('b.unknown'), []);
  assert.equal(fetched.length, 8);
  clock.advance(REFRESH_RETRY_MS);
  await store.domainServers('c.unknown');
  assert.equal(fetched.length, 12);
  // A failed refresh keeps the data in use.
  assert.deepEqual(await store.domainServers('a.new'), ['https://new.example/']);
});

test('a miss waits for a refresh at most missWaitMs; the refresh goes on and serves later lookups', async () => {
  let answer: (text: string) => void = () => {};
  const store = createRdapBootstrapStore({
    snapshot: snapshot([[['com'], ['https://old.example/']]]),
    refreshUrl: 'https://mirror.example/rdap/',
    refreshIntervalMs: 24 * 3_600_000,
    missWaitMs: 100,
    // A slow mirror: dns.json comes when the test says so; the address registries are missing.
    fetchText: (url) =>
      url.endsWith('dns.json')
        ? new Promise<string>((resolve) => {
            answer = resolve;
          })
        : Promise.reject(new Error('HTTP 404')),
  });
  const started = performance.now();
  assert.deepEqual(await store.domainServers('a.newtld'), []);
  const waited = performance.now() - started;
  assert.ok(waited >= 90 && waited < 1000, `waited ${waited} ms, not the download's own time-out`);
  answer(JSON.stringify({ services: [[['newtld'], ['https://newtld.example/']]] }));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await store.domainServers('b.newtld'), ['https://newtld.example/']);
});

test('a refresh whose domain registry is empty is refused; the data in use stays', async () => {
  const outcomes: RefreshOutcome[] = [];
  const store = createRdapBootstrapStore({
    snapshot: snapshot([[['com'], ['https://com.example/']]]),
    refreshUrl: 'https://mirror.example/rdap/',
    refreshIntervalMs: 24 * 3_600_000,
    missWaitMs: 5000,
    onRefresh: (outcome) => outcomes.push(outcome),
    fetchText: async (url) => {
      if (url.endsWith('dns.json')) return JSON.stringify({ services: [] });
      throw new Error('HTTP 404');
    },
  });
  assert.deepEqual(await store.domainServers('a.unknown'), []);
  assert.equal(outcomes.at(-1)?.ok, false);
  assert.match(JSON.stringify(outcomes.at(-1)), /dns\.json lists no services/);
  assert.deepEqual(await store.domainServers('a.com'), ['https://com.example/']);
});

test('RDAP_BOOTSTRAP_REFRESH_HOURS=0 keeps the snapshot and never fetches', async () => {
  // Counted rather than failed inside fetchText: the store catches a failing fetch (it keeps the
  // data in use), so an assertion thrown there would be swallowed.
  let fetches = 0;
  const store = createRdapBootstrapStore({
    snapshot: snapshot([[['com'], ['https://old.example/']]]),
    refreshUrl: 'https://mirror.example/rdap/',
    refreshIntervalMs: 0,
    missWaitMs: 5000,
    fetchText: async () => {
      fetches++;
      throw new Error('no fetch expected');
    },
  });
  assert.deepEqual(await store.domainServers('x.unknown'), []);
  assert.deepEqual(await store.domainServers('x.com'), ['https://old.example/']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fetches, 0);
});

test('an RDAP domain reads into the same fields as WHOIS', () => {
  // Its expiration, '2026-08-13T23:30:00-05:00', is 2026-08-14 in UTC; the date as written is kept.
  assert.deepEqual(recordFromRdapDomain(rdapFixture('domain-example.json')), rdapFixture('domain-example.parsed.json'));
  const bare = recordFromRdapDomain({
    objectClassName: 'domain',
    ldhName: 'x.example',
    secureDNS: { delegationSigned: false },
  });
  assert.equal(bare.registrar, null);
  assert.equal(bare.creation_date, null);
  assert.equal(bare.dnssec, 'unsigned');
  assert.equal(
    recordFromRdapDomain({ events: [{ eventAction: 'registration', eventDate: '2024-02-30T00:00:00Z' }] })
      .creation_date,
    null,
  );
});

test('RFC 8056 statuses map to EPP codes; the rest are kept as written', () => {
  assert.equal(eppStatus('active'), 'ok');
  assert.equal(eppStatus('Client Transfer Prohibited'), 'clientTransferProhibited');
  assert.equal(eppStatus('redemption period'), 'redemptionPeriod');
  assert.equal(eppStatus('pending delete'), 'pendingDelete');
  assert.equal(eppStatus('server hold'), 'serverHold');
  assert.equal(eppStatus('associated'), 'associated');
});

test('nulls and strings where RDAP puts objects are skipped, not a crash', () => {
  const domain = recordFromRdapDomain({
    objectClassName: 'domain',
    ldhName: 'odd.example',
    nameservers: [null, 'ns1.odd.example', { ldhName: 'NS2.odd.example.' }],
    entities: [null, 7, { roles: ['registrar'], vcardArray: ['vcard', [null, ['fn', {}, 'text', 'Odd Registrar']]] }],
    events: [null, { eventAction: 'registration', eventDate: '2020-01-02T00:00:00Z' }],
  } as RdapObject);
  assert.equal(domain.domain_name, 'odd.example');
  assert.deepEqual(domain.name_servers, ['ns2.odd.example']);
  assert.equal(domain.registrar, 'Odd Registrar');
  assert.equal(domain.creation_date, '2020-01-02');
  const network = recordFromRdapNetwork({
    objectClassName: 'ip network',
    startAddress: '198.51.100.0',
    endAddress: '198.51.100.255',
    cidr0_cidrs: [null, { v4prefix: '198.51.100.0', length: 24 }],
    entities: [null],
  } as RdapObject);
  assert.deepEqual(network.cidr, ['198.51.100.0/24']);
});

test('an RDAP autnum reads into the network fields that fit an AS, and asn_range', () => {
  const record = recordFromRdapAutnum(rdapFixture('autnum-example.json'));
  assert.deepEqual(
    [record.network_name, record.organisation, record.country, record.registry, record.asn_range, record.registered],
    ['EXAMPLE-AS', 'Example Networks B.V.', 'NL', 'ripe', 'AS64496 - AS64496', true],
  );
  assert.equal(record.cidr, undefined, 'an AS has no prefixes');
  const block = recordFromRdapAutnum({ startAutnum: 64512, endAutnum: 65534, port43: 'whois.arin.net' } as RdapObject);
  assert.deepEqual([block.asn_range, block.registry, block.network_name], ['AS64512 - AS65534', 'arin', null]);
  assert.equal(recordFromRdapAutnum({ startAutnum: 'x' } as RdapObject).asn_range, null);
});

test('an RDAP network reads into the IP fields', () => {
  const record = recordFromRdapNetwork(rdapFixture('ip-network-example.json'));
  assert.equal(record.network_name, 'EXAMPLE-NET');
  assert.equal(record.organisation, 'Example Networks B.V.');
  assert.deepEqual(record.cidr, ['198.51.100.0/24']);
  assert.equal(record.range, '198.51.100.0 - 198.51.100.255');
  assert.equal(record.country, 'NL');
  assert.equal(record.registry, 'ripe');
  assert.equal(record.registered, null);
  // Without cidr0, the prefixes are computed from the range.
  const computed = recordFromRdapNetwork({
    startAddress: '198.51.100.0',
    endAddress: '198.51.100.191',
    port43: 'whois.arin.net',
  });
  assert.deepEqual(computed.cidr, ['198.51.100.0/25', '198.51.100.128/26']);
  assert.equal(computed.registry, 'arin');
});

test('RDAP_BOOTSTRAP_URL=off is accepted like the other URL variables: the shipped snapshot only', () => {
  for (const off of ['off', 'OFF', ' off '])
    assert.equal(loadConfig({ RDAP_BOOTSTRAP_URL: off }).rdapBootstrapUrl, null);
  assert.equal(loadConfig({}).rdapBootstrapUrl, 'https://data.iana.org/rdap/');
  assert.throws(() => loadConfig({ RDAP_BOOTSTRAP_URL: 'offline' }), /RDAP_BOOTSTRAP_URL: must be an http\(s\) URL/);
});
