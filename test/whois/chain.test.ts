import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createResolver, type Resolver } from '../../src/dns/resolver.ts';
import { followWhoisReferrals, MAX_REFERRALS, type WhoisChainOptions } from '../../src/whois/chain.ts';
import { MAX_WHOIS_ANSWER_BYTES } from '../../src/whois/exchange.ts';
import type { WhoisChainTarget } from '../../src/whois/parse/target.ts';
import { parseWhoisServer } from '../../src/whois/server-address.ts';
import { type FakeWhoisNetwork, startFakeWhoisNetwork } from '../support/fake-whois-server.ts';
import { fixturesRoot } from './fixtures-root.ts';

/**
 * The referral client against real TCP listeners on loopback, serving replies captured by the
 * public parser projects (read from the shared corpora at test time). Where the corpora hold no
 * reply of a kind (IANA's answer for an address, an ARIN referral line), a short text in that
 * server's layout stands in and says so.
 */

const fixture = (relative: string) => readFileSync(path.join(fixturesRoot, relative), 'utf8');

const IANA_COM = 'likexian-whois-parser/noterror/com_com';
const VERISIGN_GOOGLE = 'weppos-whois-parser/responses/whois.verisign-grs.com/com/status_registered.txt';
const MARKMONITOR_GOOGLE = 'weppos-whois-parser/responses/whois.markmonitor.com/status_registered.txt';
const DENIC_GOOGLE = 'likexian-whois-parser/noterror/de_google.de';

// IANA's layout for an address query (the corpora have none): the block, its holder, the referral.
const IANA_FOR_74 = `% IANA WHOIS server
% for more information on IANA, visit http://www.iana.org
% This query returned 1 object

refer:        whois.arin.net

inetnum:      74.0.0.0 - 74.255.255.255
organisation: ARIN
status:       ALLOCATED

whois:        whois.arin.net
`;

const domain = (name: string): WhoisChainTarget => ({ kind: 'domain', name });
const ip = (address: string): WhoisChainTarget => ({ kind: 'ip', address });

describe('WHOIS referral chain', () => {
  let network: FakeWhoisNetwork;
  let resolver: Resolver;
  const handlers: Record<string, (query: string) => unknown> = {};

  before(async () => {
    const names = [
      'whois.iana.org',
      'whois.verisign-grs.com',
      'whois.markmonitor.com',
      'whois.arin.net',
      'whois.ripe.net',
      'whois.denic.de',
      'a.whois.test',
      'b.whois.test',
      'c.whois.test',
      'd.whois.test',
      'e.whois.test',
      'slow.whois.test',
      'huge.whois.test',
      'latin1.whois.test',
      'empty.whois.test',
      'reset.whois.test',
    ];
    network = await startFakeWhoisNetwork(
      Object.fromEntries(
        names.map((name) => [name, (query: string) => (handlers[name] as (q: string) => never)(query)]),
      ),
      { extraRecords: [{ type: 'A', name: 'refused.whois.test', ttl: 300, data: '127.0.43.99' }] },
    );
    resolver = createResolver({ servers: [network.dns.server] });
  });
  after(() => network.close());

  const options = (first: string, overrides: Partial<WhoisChainOptions> = {}): WhoisChainOptions => {
    const server = parseWhoisServer(network.server(first));
    assert.ok(server.ok);
    return {
      resolver,
      policy: { allowPrivate: true },
      firstServer: server.server,
      referralPort: network.port,
      timeoutMs: 2000,
      ...overrides,
    };
  };

  it('walks IANA -> registry -> registrar with the captured replies, and stops at a self-referral', async () => {
    handlers['whois.iana.org'] = () => fixture(IANA_COM);
    handlers['whois.verisign-grs.com'] = () => fixture(VERISIGN_GOOGLE);
    handlers['whois.markmonitor.com'] = () => fixture(MARKMONITOR_GOOGLE);
    const hops = await followWhoisReferrals(domain('google.com'), options('whois.iana.org'));
    assert.deepEqual(
      hops.map((hop) => [hop.server, hop.address, hop.query, hop.referral, hop.failure]),
      [
        [
          `whois.iana.org:${network.port}`,
          network.addressOf('whois.iana.org'),
          'google.com',
          'whois.verisign-grs.com',
          null,
        ],
        [
          `whois.verisign-grs.com:${network.port}`,
          network.addressOf('whois.verisign-grs.com'),
          'google.com',
          'whois.markmonitor.com',
          null,
        ],
        [
          `whois.markmonitor.com:${network.port}`,
          network.addressOf('whois.markmonitor.com'),
          'google.com',
          'whois.markmonitor.com',
          null,
        ],
      ],
    );
    assert.equal(hops[2]?.raw, fixture(MARKMONITOR_GOOGLE));
    assert.match(hops[2]?.note ?? '', /already asked/);
  });

  it('never asks a server twice: A -> B -> A ends at B', async () => {
    handlers['a.whois.test'] = () => 'Domain Name: loop.test\nRegistrar WHOIS Server: b.whois.test\n';
    handlers['b.whois.test'] = () => 'Domain Name: loop.test\nRegistrar WHOIS Server: a.whois.test\n';
    const before = network.queriesTo('a.whois.test').length;
    const hops = await followWhoisReferrals(domain('loop.test'), options('a.whois.test'));
    assert.deepEqual(
      hops.map((hop) => hop.server),
      [`a.whois.test:${network.port}`, `b.whois.test:${network.port}`],
    );
    assert.match(hops[1]?.note ?? '', new RegExp(`a.whois.test:${network.port} was already asked`));
    assert.equal(network.queriesTo('a.whois.test').length, before + 1);
  });

  it(`follows at most ${MAX_REFERRALS} referrals`, async () => {
    const next: Record<string, string> = {
      'a.whois.test': 'b',
      'b.whois.test': 'c',
      'c.whois.test': 'd',
      'd.whois.test': 'e',
      'e.whois.test': 'a',
    };
    for (const [host, target] of Object.entries(next)) {
      handlers[host] = () => `Domain Name: deep.test\nRegistrar WHOIS Server: ${target}.whois.test\n`;
    }
    const hops = await followWhoisReferrals(domain('deep.test'), options('a.whois.test'));
    assert.equal(hops.length, MAX_REFERRALS + 1);
    assert.match(hops.at(-1)?.note ?? '', /at most 3 referrals/);
    assert.equal(network.queriesTo('e.whois.test').length, 0);
  });

  it('gives up on a slow server at the per-hop timeout, keeping the answers before it', async () => {
    handlers['a.whois.test'] = () => 'Domain Name: slow.test\nRegistrar WHOIS Server: slow.whois.test\n';
    handlers['slow.whois.test'] = () => ({ chunks: ['Domain Name: slow.test\n'], delayMs: 10_000 });
    const started = performance.now();
    const hops = await followWhoisReferrals(domain('slow.test'), options('a.whois.test', { timeoutMs: 300 }));
    const elapsed = performance.now() - started;
    assert.equal(hops.length, 2);
    assert.equal(hops[0]?.failure, null);
    assert.equal(hops[1]?.failure?.kind, 'timeout');
    assert.match(hops[1]?.failure?.message ?? '', /no complete answer \(0 bytes received\) within 300 ms/);
    assert.ok(elapsed < 1500, `took ${elapsed} ms`);
  });

  it('times out a server that trickles its answer past the deadline', async () => {
    handlers['slow.whois.test'] = () => ({ chunks: Array.from({ length: 50 }, () => 'x'.repeat(10)), pauseMs: 20 });
    const hops = await followWhoisReferrals(domain('slow.test'), options('slow.whois.test', { timeoutMs: 300 }));
    assert.equal(hops[0]?.failure?.kind, 'timeout');
    assert.match(hops[0]?.failure?.message ?? '', /bytes received\) within 300 ms/);
  });

  it('stops reading an answer larger than the cap', async () => {
    handlers['huge.whois.test'] = () => ({
      chunks: Array.from({ length: 40 }, () => `${'%'.repeat(16_383)}\n`),
    });
    const hops = await followWhoisReferrals(domain('huge.test'), options('huge.whois.test'));
    assert.equal(hops[0]?.failure?.kind, 'too-large');
    assert.match(hops[0]?.failure?.message ?? '', new RegExp(`larger than ${MAX_WHOIS_ANSWER_BYTES} bytes`));
    assert.equal(hops[0]?.raw, null);
  });

  it('decodes UTF-8, and Latin-1 when the bytes are not UTF-8', async () => {
    const text = 'Domain Name: bücher.test\nRegistrant: Müller Straße, Zürich\n';
    handlers['latin1.whois.test'] = (query) => (query === 'utf8.test' ? text : Buffer.from(text, 'latin1'));
    const latin1 = await followWhoisReferrals(domain('latin1.test'), options('latin1.whois.test'));
    const utf8 = await followWhoisReferrals(domain('utf8.test'), options('latin1.whois.test'));
    assert.equal(latin1[0]?.raw, text);
    assert.equal(utf8[0]?.raw, text);
  });

  it('reports a server that closes without answering, and accepts an answer ended by a reset', async () => {
    handlers['empty.whois.test'] = () => '';
    handlers['reset.whois.test'] = () => ({ chunks: ['Domain Name: reset.test\n'], reset: true });
    const empty = await followWhoisReferrals(domain('empty.test'), options('empty.whois.test'));
    assert.equal(empty[0]?.failure?.kind, 'empty');
    const reset = await followWhoisReferrals(domain('reset.test'), options('reset.whois.test'));
    assert.equal(reset[0]?.raw, 'Domain Name: reset.test\n');
    assert.equal(reset[0]?.endedByReset, true, 'marked as possibly cut short');
    assert.equal(empty[0]?.endedByReset, false);
  });

  it('reports a refused connection and a name that does not resolve', async () => {
    handlers['a.whois.test'] = () => `Domain Name: gone.test\nRegistrar WHOIS Server: refused.whois.test\n`;
    const refused = await followWhoisReferrals(domain('gone.test'), options('a.whois.test'));
    assert.equal(refused[1]?.address, '127.0.43.99');
    assert.deepEqual(refused[1]?.failure, { kind: 'refused', message: 'connection refused' });
    handlers['a.whois.test'] = () => 'Domain Name: gone.test\nRegistrar WHOIS Server: nowhere.whois.test\n';
    const unresolved = await followWhoisReferrals(domain('gone.test'), options('a.whois.test'));
    assert.equal(unresolved[1]?.failure?.kind, 'dns');
    assert.equal(unresolved[1]?.address, null);
  });

  it('refuses a referral to a loopback address unless private targets are allowed, without connecting', async () => {
    handlers['a.whois.test'] = () => 'Domain Name: private.test\nRegistrar WHOIS Server: b.whois.test\n';
    handlers['b.whois.test'] = () => 'Domain Name: private.test\n';
    const before = network.queriesTo('b.whois.test').length;
    const hops = await followWhoisReferrals(
      domain('private.test'),
      options('a.whois.test', { policy: { allowPrivate: false } }),
    );
    // The first server is the operator's (WHOIS_SERVER): asked although it is on loopback too.
    assert.equal(hops[0]?.failure, null);
    assert.equal(hops[1]?.failure?.kind, 'forbidden');
    assert.equal(hops[1]?.address, null);
    assert.ok(
      hops[1]?.failure?.message.startsWith(
        `b.whois.test resolves to ${network.addressOf('b.whois.test')} is a loopback address`,
      ),
      hops[1]?.failure?.message,
    );
    assert.equal(network.queriesTo('b.whois.test').length, before);
  });

  it("asks ARIN with 'n + <ip>' and follows its ReferralServer: whois://host:port", async () => {
    const samples = JSON.parse(fixture('secynic-ipwhois/whois.json')) as Record<string, { response: string }>;
    const arin = samples['74.125.225.229']?.response ?? '';
    const ripe = samples['62.239.237.1']?.response ?? '';
    handlers['whois.iana.org'] = () => IANA_FOR_74;
    handlers['whois.arin.net'] = (query) => (query === 'n + 74.125.225.229' ? arin : 'No match found.\n');
    const hops = await followWhoisReferrals(ip('74.125.225.229'), options('whois.iana.org'));
    assert.deepEqual(
      hops.map((hop) => hop.query),
      ['74.125.225.229', 'n + 74.125.225.229'],
    );
    assert.equal(hops[1]?.raw, arin);

    // ARIN's layout for a block another registry manages (the ARIN sample has no such line).
    handlers['whois.arin.net'] = () =>
      `NetRange: 62.0.0.0 - 62.255.255.255\nReferralServer: whois://whois.ripe.net:${network.port}\n`;
    handlers['whois.ripe.net'] = (query) => (query === '62.239.237.1' ? ripe : '%ERROR:101: no entries found\n');
    const referred = await followWhoisReferrals(ip('62.239.237.1'), options('whois.arin.net'));
    assert.deepEqual(
      referred.map((hop) => [hop.server, hop.query]),
      [
        [`whois.arin.net:${network.port}`, 'n + 62.239.237.1'],
        [`whois.ripe.net:${network.port}`, '62.239.237.1'],
      ],
    );
    assert.equal(referred[1]?.raw, ripe);
  });

  it('follows a referral that names an IP address, and reports one to RWHOIS instead of dropping it', async () => {
    const address = network.addressOf('b.whois.test');
    handlers['a.whois.test'] = () =>
      `NetRange: 192.0.2.0 - 192.0.2.255\nReferralServer: whois://${address}:${network.port}\n`;
    handlers['b.whois.test'] = () =>
      'NetRange: 192.0.2.0 - 192.0.2.255\nReferralServer: rwhois://rwhois.example.net:4321\n';
    const hops = await followWhoisReferrals(ip('192.0.2.1'), options('a.whois.test'));
    assert.deepEqual(
      hops.map((hop) => [hop.server, hop.referral, hop.failure]),
      [
        [`a.whois.test:${network.port}`, `${address}:${network.port}`, null],
        [`${address}:${network.port}`, 'rwhois://rwhois.example.net:4321', null],
      ],
    );
    assert.equal(hops[0]?.note, null);
    assert.equal(hops[1]?.note, 'referral not followed: an RWHOIS server, not WHOIS over port 43');
  });

  it('does not follow a referral to a port other than the WHOIS port, and says why (issue 28, item 9/11)', async () => {
    // b.whois.test listens on the referral port too, so a followed referral would reach it: the
    // port named in the referral, not the server, is what stops the chain.
    const asked = network.queriesTo('b.whois.test').length;
    handlers['a.whois.test'] = () => 'NetRange: 192.0.2.0 - 192.0.2.255\nReferralServer: whois://b.whois.test:8043\n';
    const hops = await followWhoisReferrals(ip('192.0.2.9'), options('a.whois.test'));
    assert.equal(hops.length, 1);
    assert.equal(hops[0]?.referral, 'b.whois.test:8043');
    assert.equal(
      hops[0]?.note,
      `referral not followed: b.whois.test:8043 names port 8043; referrals are followed to port ${network.port} only`,
    );
    assert.equal(network.queriesTo('b.whois.test').length, asked);
  });

  it("asks DENIC with '-T dn,ace <domain>', an IDN as punycode", async () => {
    handlers['whois.iana.org'] = () => 'refer:        whois.denic.de\n\ndomain:       DE\n';
    handlers['whois.denic.de'] = (query) =>
      query === '-T dn,ace google.de' ? fixture(DENIC_GOOGLE) : 'Domain: unknown\nStatus: invalid\n';
    const hops = await followWhoisReferrals(domain('google.de'), options('whois.iana.org'));
    assert.deepEqual(
      hops.map((hop) => hop.query),
      ['google.de', '-T dn,ace google.de'],
    );
    assert.equal(hops[1]?.raw, fixture(DENIC_GOOGLE));
    await followWhoisReferrals(domain('xn--bcher-kva.de'), options('whois.iana.org'));
    assert.equal(network.queriesTo('whois.denic.de').at(-1), '-T dn,ace xn--bcher-kva.de');
  });
});
