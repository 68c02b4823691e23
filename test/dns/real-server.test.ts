import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { noDnsCache } from '../../src/dns/cache.ts';
import { formatRecordValue } from '../../src/dns/format.ts';
import type { QueryRecordType } from '../../src/dns/records.ts';
import { createResolver, type Resolver } from '../../src/dns/resolver.ts';
import type { DnsServer } from '../../src/dns/servers.ts';
import { buildTestApp } from '../support/app.ts';
import { findKnotd, type RealDnsServer, startRealDnsServer } from '../support/real-dns-server.ts';

/**
 * The resolver against a real authoritative server (Knot DNS) serving test/fixtures/dns/, each
 * answer compared field by field with what dig gets for the same question. Needs the Debian
 * packages `knot` and `bind9-dnsutils`; skips, saying so, without them.
 */

const execFileAsync = promisify(execFile);

function findDig(): string | null {
  for (const candidate of ['/usr/bin/dig', '/usr/local/bin/dig']) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

const knotd = findKnotd();
const dig = findDig();
const missing = [knotd ? '' : 'knotd (apt package knot)', dig ? '' : 'dig (apt package bind9-dnsutils)'].filter(
  Boolean,
);
const skip = missing.length > 0 ? `real DNS server test skipped: ${missing.join(' and ')} not installed` : false;
if (skip) console.log(`# ${skip}`);

type Row = { name: string; type: string; ttl: number; value: string };

/** dig's arguments: only the given loopback server is asked, once, with its answer section shown. */
function buildDigArgs(server: DnsServer, name: string, type: string): string[] {
  return [
    `@${server.host}`,
    '-p',
    String(server.port),
    '+noall',
    '+answer',
    '+comments',
    '+time=2',
    '+tries=1',
    name,
    type,
  ];
}

/** dig's status and answer lines, with names and values in the resolver's presentation. */
function parseDigOutput(output: string): { status: string; rows: Row[] } {
  const status = /status: (\w+)/.exec(output)?.[1] ?? 'none';
  const rows = output
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(';'))
    .map((line) => {
      const match = /^(\S+)\s+(\d+)\s+IN\s+(\S+)\s+(.*)$/.exec(line);
      if (!match) throw new Error(`unexpected dig line: ${line}`);
      const [, name = '', ttl = '', type = '', value = ''] = match;
      return { name: withoutDot(name), type, ttl: Number(ttl), value: digValue(type, value) };
    });
  return { status, rows };
}

function digValue(type: string, value: string): string {
  // dig quotes each TXT character-string; the resolver's value is their concatenation.
  if (type === 'TXT') {
    return [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
      .map((match) =>
        (match[1] ?? '').replace(/\\(\d{3}|.)/g, (_, escaped: string) =>
          escaped.length === 3 ? String.fromCharCode(Number(escaped)) : escaped,
        ),
      )
      .join('');
  }
  return value.split(' ').map(withoutDot).join(' ');
}

function withoutDot(token: string): string {
  return token.length > 1 && token.endsWith('.') ? token.slice(0, -1) : token;
}

// Question, and how many answer records the zone files give (so an empty comparison fails).
const QUESTIONS: Array<[string, QueryRecordType, number]> = [
  ['netinfo.test', 'A', 1],
  ['netinfo.test', 'AAAA', 1],
  ['netinfo.test', 'MX', 2],
  ['netinfo.test', 'NS', 2],
  ['netinfo.test', 'TXT', 1],
  ['netinfo.test', 'SOA', 1],
  ['netinfo.test', 'CAA', 1],
  ['www.netinfo.test', 'A', 4],
  ['www.netinfo.test', 'AAAA', 3],
  ['web.netinfo.test', 'CNAME', 1],
  ['host.netinfo.test', 'AAAA', 1],
  ['multi.netinfo.test', 'TXT', 1],
  ['_sip._tcp.netinfo.test', 'SRV', 1],
  ['missing.netinfo.test', 'A', 0],
  ['nodata.netinfo.test', 'A', 0],
  ['20.2.0.192.in-addr.arpa', 'PTR', 1],
  ['2.0.0.127.dnsbl.test', 'A', 1],
  ['2.0.0.127.dnsbl.test', 'TXT', 1],
  ['1.0.0.127.dnsbl.test', 'A', 0],
];

describe('resolver against a real DNS server, compared with dig', { skip }, () => {
  let real: RealDnsServer;
  let resolver: Resolver;
  before(async () => {
    real = await startRealDnsServer();
    // No cache: TTLs must be the server's, as dig sees them.
    resolver = createResolver({ servers: [real.server], cache: noDnsCache, timeoutMs: 1000 });
  });
  after(() => real?.stop());

  for (const [name, type, count] of QUESTIONS) {
    it(`${name} ${type}`, async () => {
      const { stdout } = await execFileAsync(dig ?? 'dig', buildDigArgs(real.server, name, type));
      const expected = parseDigOutput(stdout);
      const result = await resolver.query(name, type);
      assert.equal(result.rcode, expected.status);
      const rows: Row[] = result.answers.map((record) => ({
        name: record.name,
        type: record.type,
        ttl: record.ttl,
        value: formatRecordValue(record),
      }));
      assert.deepEqual(rows, expected.rows);
      assert.equal(rows.length, count);
    });
  }

  it('finds what the zones say for the resolver’s own uses', async () => {
    assert.equal(await resolver.reverse('192.0.2.20'), 'host.netinfo.test');
    assert.equal(await resolver.reverse('192.0.2.99'), null);
    assert.deepEqual(await resolver.resolveAddresses('www.netinfo.test'), [
      { address: '192.0.2.20', family: 4 },
      { address: '192.0.2.21', family: 4 },
      { address: '2001:db8::20', family: 6 },
    ]);
    const listed = await resolver.query('2.0.0.127.dnsbl.test', 'A');
    const notListed = await resolver.query('1.0.0.127.dnsbl.test', 'A');
    assert.deepEqual(listed.answers.map(formatRecordValue), ['127.0.0.2']);
    assert.equal(notListed.rcode, 'NXDOMAIN');
    // RFC 2308: the negative TTL is min(SOA TTL, SOA MINIMUM): 60 in dnsbl.test.zone.
    assert.equal(notListed.authority[0]?.ttl, 60);
  });
});

describe('/api/v1/dns and /api/v1/blacklist against the real DNS server, compared with dig', { skip }, () => {
  let real: RealDnsServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  before(async () => {
    real = await startRealDnsServer();
    app = await buildTestApp({
      DNS_SERVERS: `${real.server.host}:${real.server.port}`,
      DNS_CACHE_ENTRIES: '0',
      DNSBL_ZONES: 'Test list=dnsbl.test',
    });
  });
  after(async () => {
    await app?.close();
    await real?.stop();
  });

  const apiTypes = new Set(['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'SOA', 'PTR', 'SRV']);
  for (const [name, type, count] of QUESTIONS.filter(([, type]) => apiTypes.has(type))) {
    it(`GET /api/v1/dns ${name} ${type}`, async () => {
      const { stdout } = await execFileAsync(dig ?? 'dig', buildDigArgs(real.server, name, type));
      const expected = parseDigOutput(stdout);
      const response = await app.inject({ url: `/api/v1/dns?host=${name}&record_type=${type}` });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.status, expected.status);
      const rows: Row[] = body.records.map(
        (record: { name: string; record_type: string; ttl: number; value: string }) => ({
          name: record.name,
          type: record.record_type,
          ttl: record.ttl,
          value: record.value,
        }),
      );
      assert.deepEqual(rows, expected.rows);
      assert.equal(rows.length, count);
    });
  }

  it('GET /api/v1/blacklist: the RFC 5782 test entries of a real DNSBL zone', async () => {
    const listed = (await app.inject({ url: '/api/v1/blacklist?ip=127.0.0.2' })).json();
    assert.deepEqual(
      [listed.total, listed.listed, listed.clean, listed.results[0].status, listed.results[0].return_codes],
      [1, 1, false, 'listed', ['127.0.0.2']],
    );
    assert.match(listed.results[0].reason, /Listed for testing/);
    const clean = (await app.inject({ url: '/api/v1/blacklist?ip=127.0.0.1' })).json();
    assert.deepEqual(
      [clean.listed, clean.clean, clean.complete, clean.errors, clean.results[0].status],
      [0, true, true, 0, 'not_listed'],
    );
  });
});
