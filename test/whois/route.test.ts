import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp, manualClock } from '../support/app.ts';
import { type FakeHttpServer, startFakeHttpServer } from '../support/fake-http-server.ts';
import { type FakeWhoisNetwork, startFakeWhoisNetwork } from '../support/fake-whois-server.ts';
import { fixturesRoot } from './fixtures-root.ts';

/**
 * GET /api/v1/whois end to end: the real app, its resolver asking a fake DNS server, fake WHOIS
 * servers on loopback serving replies from the shared corpora, and a local HTTP server standing in
 * for IANA's bootstrap registry and for RDAP servers.
 */

const fixture = (relative: string) => readFileSync(path.join(fixturesRoot, relative), 'utf8');
const rdapFixture = (name: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'fixtures', 'rdap', name), 'utf8')) as object;

const IANA_COM = 'likexian-whois-parser/noterror/com_com';
const VERISIGN_GOOGLE = 'weppos-whois-parser/responses/whois.verisign-grs.com/com/status_registered.txt';
const MARKMONITOR_GOOGLE = 'weppos-whois-parser/responses/whois.markmonitor.com/status_registered.txt';
const VERISIGN_NOT_FOUND = 'likexian-whois-parser/notfound/com_likexian-have-no-money-to-register.com';

// IANA's layouts for what the corpora lack: a TLD that runs no WHOIS server (no refer: or whois:
// line), referrals to made-up registries, and an address block.
const ianaTld = (tld: string, refer: string | null) => `% IANA WHOIS server
% for more information on IANA, visit http://www.iana.org
% This query returned 1 object
${refer ? `\nrefer:        ${refer}\n` : ''}
domain:       ${tld.toUpperCase()}

organisation: Example Registry Services
address:      Nowhere

nserver:      NS1.NIC.${tld.toUpperCase()} 192.0.2.53

status:       ACTIVE
remarks:      Registration information: http://www.nic.${tld}

created:      2014-05-08
changed:      2024-01-10
source:       IANA
`;
const IANA_FOR_74 = 'refer:        whois.arin.net\n\ninetnum:      74.0.0.0 - 74.255.255.255\norganisation: ARIN\n';

describe('GET /api/v1/whois', () => {
  let network: FakeWhoisNetwork;
  let http: FakeHttpServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const clock = manualClock('2026-11-22T05:00:00Z');

  before(async () => {
    const samples = JSON.parse(fixture('secynic-ipwhois/whois.json')) as Record<string, { response: string }>;
    network = await startFakeWhoisNetwork(
      {
        'whois.iana.org': (query) => {
          if (query.endsWith('.com')) return fixture(IANA_COM);
          if (query === '74.125.225.229' || query === '74.125.225.0') return IANA_FOR_74;
          if (query.endsWith('.rdaptest')) return ianaTld('rdaptest', null);
          if (query.endsWith('.failtest')) return ianaTld('failtest', 'whois.nic.failtest');
          if (query.endsWith('.refusetest')) return ianaTld('refusetest', 'refused.whois.test');
          if (query.endsWith('.porttest')) return ianaTld('porttest', 'whois.nic.failtest:8043');
          if (query.endsWith('.privtest')) return ianaTld('privtest', 'whois.nic.privtest');
          if (query.endsWith('.resettest')) return ianaTld('resettest', 'whois.nic.resettest');
          // An address nobody answers for at port 43 (documentation range): IANA times out.
          return { hang: true };
        },
        'whois.verisign-grs.com': (query) =>
          query === 'google.com' ? fixture(VERISIGN_GOOGLE) : fixture(VERISIGN_NOT_FOUND),
        'whois.markmonitor.com': () => fixture(MARKMONITOR_GOOGLE),
        'whois.arin.net': (query) =>
          query === 'n + 74.125.225.229' || query === 'n + 74.125.225.0'
            ? (samples['74.125.225.229']?.response ?? '')
            : '',
        'whois.nic.failtest': () => ({ hang: true }),
        'whois.nic.privtest': () => 'Domain Name: private.privtest\nRegistrar: Should Not Be Asked\n',
        // Ends with a reset: the answer may be whole or cut short, nothing tells which.
        'whois.nic.resettest': () => ({ chunks: ['Domain Name: cut.resettest\nRegistrar: Cut Sh'], reset: true }),
      },
      {
        extraRecords: [
          { type: 'A', name: 'refused.whois.test', ttl: 300, data: '127.0.43.99' },
          { type: 'A', name: 'rdap.nic.rdaptest', ttl: 300, data: '127.0.0.1' },
        ],
      },
    );
    http = await startFakeHttpServer((requestPath) => {
      const rdapBase = `http://rdap.nic.rdaptest:${http.port}/rdap/`;
      switch (requestPath) {
        case '/bootstrap/dns.json':
          return {
            body: {
              version: '1.0',
              publication: '2026-11-01T00:00:00Z',
              services: [[['rdaptest', 'failtest'], [rdapBase]]],
            },
          };
        case '/bootstrap/ipv4.json':
          return {
            body: {
              version: '1.0',
              publication: '2026-11-01T00:00:00Z',
              services: [[['198.51.100.0/24'], [rdapBase]]],
            },
          };
        case '/rdap/domain/moved.rdaptest':
          return { status: 301, headers: { location: `http://rdap.nic.rdaptest:8443/rdap/domain/moved.rdaptest` } };
        case '/rdap/domain/example.rdaptest':
          return { body: rdapFixture('domain-example.json') };
        case '/bootstrap/asn.json':
          return {
            body: {
              version: '1.0',
              publication: '2026-11-01T00:00:00Z',
              services: [[['64496-64511', '65551'], [rdapBase]]],
            },
          };
        case '/rdap/ip/198.51.100.7':
        case '/rdap/ip/198.51.100.0/24':
          return { body: rdapFixture('ip-network-example.json') };
        case '/rdap/autnum/64496':
          return { body: rdapFixture('autnum-example.json') };
        case '/rdap/autnum/65551':
          return { status: 503, body: 'maintenance' };
        case '/rdap/domain/down.failtest':
          return { status: 503, body: 'maintenance' };
        default:
          return { status: 404, body: { errorCode: 404, title: 'Not Found' } };
      }
    });
    app = await buildTestApp(
      {
        WHOIS_SERVER: network.server('whois.iana.org'),
        DNS_SERVERS: formatServer(network.dns.server),
        ALLOW_PRIVATE_TARGETS: 'true',
        WHOIS_TIMEOUT_MS: '400',
        RDAP_BOOTSTRAP_URL: `http://127.0.0.1:${http.port}/bootstrap/`,
      },
      { whoisReferralPort: network.port, rdapPorts: [http.port], now: clock.now },
    );
  });
  after(async () => {
    await app.close();
    await network.close();
    await http.close();
  });

  const whois = async (target: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/v1/whois?target=${encodeURIComponent(target)}` });
    return { status: response.statusCode, body: response.json() };
  };

  it('follows IANA -> Verisign -> MarkMonitor and reads the registrar, filling its gaps from the registry', async () => {
    const { status, body } = await whois('GOOGLE.com.');
    assert.equal(status, 200);
    assert.equal(body.target, 'google.com');
    assert.equal(body.target_type, 'domain');
    assert.equal(body.source, 'whois');
    assert.equal(body.cached, false);
    assert.equal(body.raw, fixture(MARKMONITOR_GOOGLE));
    assert.equal(body.queried_at, '2026-11-22T05:00:00Z');
    assert.deepEqual(body.parsed, {
      domain_name: 'google.com',
      registrar: 'MarkMonitor, Inc.',
      creation_date: '2002-10-02',
      expiration_date: '2020-09-13',
      updated_date: '2013-10-29',
      name_servers: ['ns2.google.com', 'ns1.google.com', 'ns3.google.com', 'ns4.google.com'],
      status: ['clientUpdateProhibited', 'clientTransferProhibited', 'clientDeleteProhibited'],
      // MarkMonitor's reply has no DNSSEC line; Verisign's says unsigned.
      dnssec: 'unsigned',
      registered: true,
    });
    assert.deepEqual(
      body.servers.map((step: { server: string; query: string; referral: string | null; error: string | null }) => [
        step.server,
        step.query,
        step.referral,
        step.error,
      ]),
      [
        [network.server('whois.iana.org'), 'google.com', 'whois.verisign-grs.com', null],
        [network.server('whois.verisign-grs.com'), 'google.com', 'whois.markmonitor.com', null],
        [network.server('whois.markmonitor.com'), 'google.com', 'whois.markmonitor.com', null],
      ],
    );
  });

  it('serves a repeat from the cache until WHOIS_CACHE_SECONDS pass', async () => {
    const asked = network.queriesTo('whois.iana.org').length;
    clock.advance(3599_000);
    const second = await whois('google.com');
    assert.equal(second.body.cached, true);
    assert.equal(second.body.queried_at, '2026-11-22T05:00:00Z');
    assert.equal(network.queriesTo('whois.iana.org').length, asked);
    clock.advance(2_000);
    const third = await whois('google.com');
    assert.equal(third.body.cached, false);
    assert.equal(third.body.queried_at, '2026-11-22T06:00:01Z');
    assert.equal(network.queriesTo('whois.iana.org').length, asked + 1);
  });

  it('shows an answer ended by a reset, says it may be cut short, and keeps it only briefly', async () => {
    const first = await whois('cut.resettest');
    assert.equal(first.status, 200);
    assert.equal(first.body.parsed.domain_name, 'cut.resettest');
    const last = first.body.servers.at(-1);
    assert.equal(last.server, network.server('whois.nic.resettest'));
    assert.equal(last.error, null);
    assert.match(last.note, /reset the connection instead of closing it: the answer may be cut short/);
    const asked = network.queriesTo('whois.nic.resettest').length;
    clock.advance(61_000);
    const again = await whois('cut.resettest');
    assert.equal(again.body.cached, false, 'kept 60 s, not WHOIS_CACHE_SECONDS');
    assert.equal(network.queriesTo('whois.nic.resettest').length, asked + 1);
  });

  it('says registered: false for a name the registry does not know', async () => {
    const { status, body } = await whois('likexian-have-no-money-to-register.com');
    assert.equal(status, 200);
    assert.equal(body.source, 'whois');
    assert.equal(body.parsed.registered, false);
    assert.equal(body.parsed.domain_name, null);
    assert.equal(body.raw, fixture(VERISIGN_NOT_FOUND));
  });

  it("reads an IP target's network from ARIN, asked with 'n + <ip>'", async () => {
    const { status, body } = await whois('::ffff:74.125.225.229');
    assert.equal(status, 200);
    assert.equal(body.target, '74.125.225.229');
    assert.equal(body.target_type, 'ip');
    assert.equal(body.servers[1].query, 'n + 74.125.225.229');
    assert.deepEqual(body.parsed, {
      domain_name: null,
      registrar: null,
      creation_date: null,
      expiration_date: null,
      updated_date: null,
      name_servers: [],
      status: [],
      dnssec: null,
      registered: null,
      network_name: 'GOOGLE',
      organisation: 'Google Inc.',
      cidr: ['74.125.0.0/16'],
      range: '74.125.0.0 - 74.125.255.255',
      country: 'US',
      registry: 'arin',
    });
  });

  it('asks RDAP when the TLD runs no WHOIS server, with the bootstrap refreshed from RDAP_BOOTSTRAP_URL', async () => {
    const { status, body } = await whois('example.rdaptest');
    assert.equal(status, 200);
    assert.equal(body.source, 'rdap');
    assert.deepEqual(JSON.parse(body.raw), rdapFixture('domain-example.json'));
    assert.deepEqual(body.parsed, rdapFixture('domain-example.parsed.json'));
    const rdapStep = body.servers.at(-1);
    assert.equal(rdapStep.protocol, 'rdap');
    assert.equal(rdapStep.server, `http://rdap.nic.rdaptest:${http.port}/rdap/domain/example.rdaptest`);
    assert.equal(rdapStep.address, '127.0.0.1');
    assert.equal(rdapStep.http_status, 200);
    assert.ok(http.requests.some((request) => request.path === '/bootstrap/dns.json'));
    const rdapRequest = http.requests.find((request) => request.path === '/rdap/domain/example.rdaptest');
    assert.equal(rdapRequest?.host, `rdap.nic.rdaptest:${http.port}`);
    assert.match(rdapRequest?.accept ?? '', /application\/rdap\+json/);
  });

  it('takes RDAP 404 as "not registered"', async () => {
    const { status, body } = await whois('missing.rdaptest');
    assert.equal(status, 200);
    assert.equal(body.source, 'rdap');
    assert.equal(body.parsed.registered, false);
  });

  it('asks RDAP for an address when WHOIS fails, from the address registry of the refreshed bootstrap', async () => {
    const { status, body } = await whois('198.51.100.7');
    assert.equal(status, 200);
    assert.equal(body.source, 'rdap');
    assert.match(body.servers[0].error, /no complete answer \(0 bytes received\) within 400 ms/);
    assert.equal(body.parsed.network_name, 'EXAMPLE-NET');
    assert.equal(body.parsed.organisation, 'Example Networks B.V.');
    assert.deepEqual(body.parsed.cidr, ['198.51.100.0/24']);
    assert.equal(body.parsed.range, '198.51.100.0 - 198.51.100.255');
    assert.equal(body.parsed.country, 'NL');
    assert.equal(body.parsed.registry, 'ripe');
  });

  it('regression (issue 18): reads a pasted URL, upper case and a trailing dot as the domain', async () => {
    for (const target of ['https://google.com/search?q=x', 'GOOGLE.COM.', 'http://Google.com:8080']) {
      const { status, body } = await whois(target);
      assert.equal(status, 200, target);
      assert.deepEqual(
        [body.target, body.target_type, body.parsed.registrar],
        ['google.com', 'domain', 'MarkMonitor, Inc.'],
      );
    }
  });

  it("regression (issue 18): looks an AS number up in RDAP (autnum), from the bootstrap's asn.json", async () => {
    const { status, body } = await whois('as64496');
    assert.equal(status, 200);
    assert.deepEqual([body.target, body.target_type, body.source], ['AS64496', 'asn', 'rdap']);
    assert.deepEqual(JSON.parse(body.raw), rdapFixture('autnum-example.json'));
    assert.deepEqual(body.parsed, {
      domain_name: null,
      registrar: null,
      creation_date: null,
      expiration_date: null,
      updated_date: null,
      name_servers: [],
      status: [],
      dnssec: null,
      registered: true,
      network_name: 'EXAMPLE-AS',
      organisation: 'Example Networks B.V.',
      country: 'NL',
      registry: 'ripe',
      asn_range: 'AS64496 - AS64496',
    });
    // RDAP only: no WHOIS server is asked about an AS number.
    assert.deepEqual(
      body.servers.map((step: { protocol: string; server: string }) => [step.protocol, step.server]),
      [['rdap', `http://rdap.nic.rdaptest:${http.port}/rdap/autnum/64496`]],
    );
    const unassigned = await whois('AS64500');
    assert.equal(unassigned.status, 200);
    assert.equal(unassigned.body.parsed.registered, false, 'RDAP 404: no such AS number');
    const down = await whois('AS65551');
    assert.equal(down.status, 502);
    assert.equal(
      down.body.error,
      `RDAP lookup of AS65551 failed: RDAP http://rdap.nic.rdaptest:${http.port}/rdap/autnum/65551 at 127.0.0.1: answered HTTP 503.`,
    );
    const unknown = await whois('AS4200000000');
    assert.equal(unknown.status, 502);
    assert.match(unknown.body.error, /names no RDAP server for AS4200000000/);
  });

  it('regression (issue 18): looks a network up: WHOIS on its first address, RDAP ip/<prefix> as the fallback', async () => {
    const viaWhois = await whois('74.125.225.0/24');
    assert.equal(viaWhois.status, 200);
    assert.deepEqual(
      [viaWhois.body.target, viaWhois.body.target_type, viaWhois.body.source],
      ['74.125.225.0/24', 'network', 'whois'],
    );
    assert.deepEqual(
      viaWhois.body.servers.map((step: { query: string }) => step.query),
      ['74.125.225.0', 'n + 74.125.225.0'],
    );
    assert.deepEqual(viaWhois.body.parsed.cidr, ['74.125.0.0/16']);
    const viaRdap = await whois('198.51.100.0/24');
    assert.equal(viaRdap.status, 200);
    assert.deepEqual([viaRdap.body.target_type, viaRdap.body.source], ['network', 'rdap']);
    assert.equal(viaRdap.body.servers.at(-1).server, `http://rdap.nic.rdaptest:${http.port}/rdap/ip/198.51.100.0/24`);
    assert.equal(viaRdap.body.parsed.network_name, 'EXAMPLE-NET');
    const hostBits = await whois('8.8.8.8/24');
    assert.equal(hostBits.status, 400);
    assert.match(hostBits.body.error, /the network is 8\.8\.8\.0\/24/);
  });

  it("does not follow a WHOIS referral to a port other than 43 (here: the fake servers' port), and says why", async () => {
    const { status, body } = await whois('example.porttest');
    assert.equal(status, 200);
    assert.equal(body.servers.length, 1, 'only IANA was asked');
    assert.equal(body.servers[0].referral, 'whois.nic.failtest:8043');
    assert.equal(
      body.servers[0].note,
      `referral not followed: whois.nic.failtest:8043 names port 8043; referrals are followed to port ${network.port} only`,
    );
  });

  it('does not follow an RDAP redirect to a port other than 443 and 80 (here: the fake server), and says why', async () => {
    const { status, body } = await whois('moved.rdaptest');
    assert.equal(status, 502);
    assert.match(
      body.error,
      /RDAP http:\/\/rdap\.nic\.rdaptest:\d+\/rdap\/domain\/moved\.rdaptest: redirected to http:\/\/rdap\.nic\.rdaptest:8443\/rdap\/domain\/moved\.rdaptest, not followed: port 8443 is not one of the ports connected to \(\d+\)/,
    );
  });

  it('answers 502 naming every server that failed and how', async () => {
    const { status, body } = await whois('down.failtest');
    assert.equal(status, 502);
    assert.equal(
      body.error,
      `WHOIS lookup of down.failtest failed: whois.nic.failtest:${network.port} at ${network.addressOf('whois.nic.failtest')}: no complete answer (0 bytes received) within 400 ms; RDAP http://rdap.nic.rdaptest:${http.port}/rdap/domain/down.failtest at 127.0.0.1: answered HTTP 503.`,
    );
    const refused = await whois('gone.refusetest');
    assert.equal(refused.status, 502);
    assert.equal(
      refused.body.error,
      `WHOIS lookup of gone.refusetest failed: refused.whois.test:${network.port} at 127.0.43.99: connection refused; no RDAP fallback: IANA's RDAP bootstrap registry names no RDAP server for .refusetest.`,
    );
  });

  it('does not cache a failure', async () => {
    const asked = network.queriesTo('whois.nic.failtest').length;
    await whois('down.failtest');
    assert.equal(network.queriesTo('whois.nic.failtest').length, asked + 1);
  });

  it('answers 400 for what is not a domain name or an address', async () => {
    for (const target of [
      '',
      'com',
      'under_score.example',
      'https://user@example.com/',
      '1.2.3',
      'fe80::1%eth0',
      '..',
    ]) {
      const { status, body } = await whois(target);
      assert.equal(status, 400, target);
      assert.match(body.error, /'target'/, target);
    }
    const missing = await app.inject({ method: 'GET', url: '/api/v1/whois' });
    assert.equal(missing.statusCode, 400);
  });

  it('is described in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const operation = document.paths['/api/v1/whois'].get;
    assert.ok(operation.responses['502']);
    assert.deepEqual(Object.keys(operation.responses['200'].content['application/json'].schema.properties), [
      'target',
      'target_type',
      'raw',
      'parsed',
      'cached',
      'source',
      'servers',
      'queried_at',
    ]);
  });
});

describe('GET /api/v1/whois without ALLOW_PRIVATE_TARGETS', () => {
  let network: FakeWhoisNetwork;
  let app: Awaited<ReturnType<typeof buildTestApp>>;

  before(async () => {
    network = await startFakeWhoisNetwork({
      'whois.iana.org': (query) =>
        query === 'google.com' ? fixture(IANA_COM) : ianaTld('privtest', 'whois.nic.privtest'),
      'whois.verisign-grs.com': () => fixture(VERISIGN_GOOGLE),
      'whois.markmonitor.com': () => fixture(MARKMONITOR_GOOGLE),
      'whois.nic.privtest': () => 'Domain Name: private.privtest\n',
    });
    app = await buildTestApp(
      {
        WHOIS_SERVER: network.server('whois.iana.org'),
        DNS_SERVERS: formatServer(network.dns.server),
        RDAP_BOOTSTRAP_REFRESH_HOURS: '0',
      },
      { whoisReferralPort: network.port },
    );
  });
  after(async () => {
    await app.close();
    await network.close();
  });

  it('answers 400 when the way on is a referral to a loopback address, and never connects to it', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/whois?target=private.privtest' });
    assert.equal(response.statusCode, 400);
    assert.equal(
      response.json().error,
      `WHOIS lookup of private.privtest stopped at the referral to whois.nic.privtest:${network.port}: whois.nic.privtest resolves to ${network.addressOf('whois.nic.privtest')} is a loopback address (Loopback, 127.0.0.0/8); the service does not connect to private, loopback, link-local, multicast, reserved or metadata addresses.`,
    );
    assert.deepEqual(network.queriesTo('whois.nic.privtest'), []);
  });

  it('follows the referral when ALLOW_PRIVATE_TARGETS lists its address, and only then (issue 23)', async () => {
    const address = network.addressOf('whois.nic.privtest');
    const build = (allow: string) =>
      buildTestApp(
        {
          WHOIS_SERVER: network.server('whois.iana.org'),
          DNS_SERVERS: formatServer(network.dns.server),
          RDAP_BOOTSTRAP_REFRESH_HOURS: '0',
          ALLOW_PRIVATE_TARGETS: allow,
        },
        { whoisReferralPort: network.port },
      );
    const listed = await build(`10.0.0.0/8,${address}/32`);
    const other = await build('127.0.43.250/32,::1');
    try {
      const open = await listed.inject({ method: 'GET', url: '/api/v1/whois?target=private.privtest' });
      assert.equal(open.statusCode, 200);
      assert.equal(open.json().raw, 'Domain Name: private.privtest\n');
      assert.deepEqual(network.queriesTo('whois.nic.privtest'), ['private.privtest']);
      const closed = await other.inject({ method: 'GET', url: '/api/v1/whois?target=private.privtest' });
      assert.equal(closed.statusCode, 400);
      assert.match(closed.json().error, /is a loopback address/);
      assert.deepEqual(network.queriesTo('whois.nic.privtest'), ['private.privtest']);
    } finally {
      await listed.close();
      await other.close();
    }
  });
});
