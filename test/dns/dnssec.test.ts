import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { DnsServer } from '../../src/dns/servers.ts';
import { typeNumber } from '../../src/dns/types.ts';
import { buildTestApp } from '../support/app.ts';
import { findKnotd } from '../support/real-dns-server.ts';
import { findUnbound, startValidatingResolver, type ValidatingResolver } from '../support/validating-resolver.ts';

/**
 * DNSSEC for real: Knot signs secure.test and bogus.test, Unbound validates in front of it
 * (test/support/validating-resolver.ts), and the service asks Unbound. Records are compared field
 * by field with what dig gets from Knot for the same question (Knot's TTLs do not count down, so
 * the service's TTL, through Unbound's cache, may only be lower); AD, RRSIG and DNSKEY are real.
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

const dig = findDig();
const missing = [
  findKnotd() ? '' : 'knotd (apt package knot)',
  findUnbound() ? '' : 'unbound (apt package unbound)',
  dig ? '' : 'dig (apt package bind9-dnsutils)',
].filter(Boolean);
const skip = missing.length > 0 ? `DNSSEC test skipped: ${missing.join(' and ')} not installed` : false;
if (skip) console.log(`# ${skip}`);

type Row = { name: string; type: string; ttl: number; value: string };

/** dig's answer rows from `server`, with DNSSEC records, each RRSIG's signature in one piece. */
async function digRows(server: DnsServer, name: string, type: string, dnssec: boolean): Promise<Row[]> {
  const args = [`@${server.host}`, '-p', String(server.port), '+noall', '+answer', '+nosplit', '+time=2', '+tries=1'];
  const { stdout } = await execFileAsync(dig ?? 'dig', [...args, ...(dnssec ? ['+dnssec'] : []), name, type]);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(';'))
    .map((line) => {
      const match = /^(\S+)\s+(\d+)\s+IN\s+(\S+)\s+(.*)$/.exec(line);
      if (!match) throw new Error(`unexpected dig line: ${line}`);
      const [, owner = '', ttl = '', recordType = '', value = ''] = match;
      return { name: owner, type: recordType, ttl: Number(ttl), value };
    });
}

/** dig's presentation, in /api/v1/dns's form: no trailing dots, TXT strings unquoted and joined. */
function asApiValue(row: Row): Row {
  const noDot = (token: string) => (token.length > 1 && token.endsWith('.') ? token.slice(0, -1) : token);
  const value =
    row.type === 'TXT'
      ? [...row.value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]).join('')
      : row.value.split(' ').map(noDot).join(' ');
  return { ...row, name: noDot(row.name), value };
}

const withoutTtl = ({ ttl: _ttl, ...rest }: Row) => rest;
/**
 * The rows without TTLs, in a fixed order: the order of records within an RRset means nothing, and
 * Knot puts all RRSIGs at the end where the service puts each after the RRset it covers (the
 * order the service gives is checked by the list of types).
 */
const asSet = (rows: Row[]) => rows.map((row) => JSON.stringify(withoutTtl(row))).sort();

// Each question with the record types the answer must hold, in order (so an empty comparison fails).
const SIGNED_QUESTIONS: Array<[string, string, string[]]> = [
  ['secure.test', 'A', ['A', 'RRSIG']],
  ['secure.test', 'MX', ['MX', 'RRSIG']],
  ['secure.test', 'TXT', ['TXT', 'RRSIG']],
  ['secure.test', 'CAA', ['CAA', 'RRSIG']],
  ['secure.test', 'HTTPS', ['HTTPS', 'RRSIG']],
  ['secure.test', 'DNSKEY', ['DNSKEY', 'DNSKEY', 'RRSIG']],
  ['alias.secure.test', 'HTTPS', ['HTTPS', 'RRSIG']],
  ['_8443._foo.api.secure.test', 'SVCB', ['SVCB', 'RRSIG']],
  ['_25._tcp.mail.secure.test', 'TLSA', ['TLSA', 'RRSIG']],
  ['child.secure.test', 'DS', ['DS', 'RRSIG']],
  ['www.secure.test', 'A', ['CNAME', 'RRSIG', 'A', 'RRSIG']],
];

describe('/api/v1/dns with dnssec=true behind a validating resolver, compared with dig', { skip }, () => {
  let dns: ValidatingResolver;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  before(async () => {
    dns = await startValidatingResolver();
    app = await buildTestApp({ DNS_SERVERS: `${dns.server.host}:${dns.server.port}`, DNS_CACHE_ENTRIES: '0' });
  });
  after(async () => {
    await app?.close();
    await dns?.stop();
  });

  const ask = async (host: string, type: string, extra = '') => {
    const response = await app.inject({ url: `/api/v1/dns?host=${host}&record_type=${type}${extra}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as {
      status: string;
      ad?: boolean;
      records: { name: string; record_type: string; ttl: number; value: string }[];
    };
  };
  const rowsOf = (body: Awaited<ReturnType<typeof ask>>): Row[] =>
    body.records.map((record) => ({
      name: record.name,
      type: record.record_type,
      ttl: record.ttl,
      value: record.value,
    }));

  for (const [name, type, types] of SIGNED_QUESTIONS) {
    it(`${name} ${type}: the records and their RRSIGs as dig shows them, AD set`, async () => {
      const expected = (await digRows(dns.authoritative, name, type, true)).map(asApiValue);
      const body = await ask(name, type, '&dnssec=true');
      const rows = rowsOf(body);
      assert.equal(body.status, 'NOERROR');
      assert.equal(body.ad, true);
      assert.deepEqual(asSet(rows), asSet(expected));
      assert.deepEqual(
        rows.map((row) => row.type),
        types,
      );
      const digTtl = new Map(expected.map((row) => [`${row.name} ${row.type}`, row.ttl]));
      for (const row of rows) assert.ok(row.ttl <= (digTtl.get(`${row.name} ${row.type}`) ?? 0));
    });

    it(`${name} ${type} without dnssec: the same records, no RRSIG and no ad`, async () => {
      const expected = (await digRows(dns.authoritative, name, type, false)).map(asApiValue);
      const body = await ask(name, type);
      assert.equal(body.ad, undefined);
      assert.deepEqual(asSet(rowsOf(body)), asSet(expected));
      assert.deepEqual(
        rowsOf(body).map((row) => row.type),
        types.filter((recordType) => recordType !== 'RRSIG'),
      );
    });
  }

  it('an unsigned zone: the data, ad false, no RRSIG', async () => {
    const body = await ask('unsigned.test', 'A', '&dnssec=true');
    assert.deepEqual([body.ad, rowsOf(body).map((row) => [row.type, row.value])], [false, [['A', '192.0.2.60']]]);
  });

  it('a zone whose signatures do not match its trust anchor: the validator’s SERVFAIL is a 502', async () => {
    const response = await app.inject({ url: '/api/v1/dns?host=bogus.test&record_type=A&dnssec=true' });
    assert.equal(response.statusCode, 502);
    assert.match(response.json().error, /SERVFAIL/);
  });

  it('a missing name in a signed zone: NXDOMAIN, validated', async () => {
    const body = await ask('missing.secure.test', 'A', '&dnssec=true');
    assert.deepEqual([body.status, body.ad, body.records], ['NXDOMAIN', true, []]);
  });

  it('refuses a dnssec value that is not a yes or no', async () => {
    const response = await app.inject({ url: '/api/v1/dns?host=secure.test&record_type=A&dnssec=maybe' });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /'dnssec'/);
  });
});

describe('the DNS cache keeps answers with and without DNSSEC records apart', { skip }, () => {
  let dns: ValidatingResolver;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  before(async () => {
    dns = await startValidatingResolver();
    app = await buildTestApp({ DNS_SERVERS: `${dns.server.host}:${dns.server.port}` });
  });
  after(async () => {
    await app?.close();
    await dns?.stop();
  });

  const ask = async (dnssec: boolean) =>
    (await app.inject({ url: `/api/v1/dns?host=secure.test&record_type=A${dnssec ? '&dnssec=true' : ''}` })).json();
  const types = (body: { records: { record_type: string }[] }) => body.records.map((record) => record.record_type);

  it('regression: a cached plain answer is not served for dnssec=true, nor the signed one for a plain query', async () => {
    const plain = await ask(false);
    assert.deepEqual([plain.cached, types(plain)], [false, ['A']]);
    const signed = await ask(true);
    assert.deepEqual([signed.cached, types(signed), signed.ad], [false, ['A', 'RRSIG'], true]);
    const signedAgain = await ask(true);
    assert.deepEqual([signedAgain.cached, types(signedAgain), signedAgain.ad], [true, ['A', 'RRSIG'], true]);
    const plainAgain = await ask(false);
    assert.deepEqual([plainAgain.cached, types(plainAgain), plainAgain.ad], [true, ['A'], undefined]);
  });
});

describe('/api/v1/dns-json behind a validating resolver, compared with dig', { skip }, () => {
  let dns: ValidatingResolver;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  before(async () => {
    dns = await startValidatingResolver();
    app = await buildTestApp({ DNS_SERVERS: `${dns.server.host}:${dns.server.port}`, DNS_CACHE_ENTRIES: '0' });
  });
  after(async () => {
    await app?.close();
    await dns?.stop();
  });

  type DohRecord = { name: string; type: number; TTL: number; data: string };
  const ask = async (query: string) => {
    const response = await app.inject({ url: `/api/v1/dns-json?${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  // `data` is dig's presentation as it is: trailing dots, quoted TXT strings, RRSIG times.
  const asDohSet = (rows: { name: string; type: number; data: string }[]) =>
    rows.map((row) => JSON.stringify([row.name, row.type, row.data])).sort();

  for (const [name, type, types] of SIGNED_QUESTIONS) {
    it(`${name} ${type} do=1: Answer field by field as dig prints it, AD set`, async () => {
      const expected = await digRows(dns.authoritative, name, type, true);
      const body = await ask(`name=${name}&type=${type}&do=1`);
      assert.deepEqual([body.Status, body.TC, body.RD, body.RA, body.AD, body.CD], [0, false, true, true, true, false]);
      assert.deepEqual(body.Question, [{ name: `${name}.`, type: typeNumber(type) }]);
      assert.deepEqual(
        asDohSet(body.Answer),
        asDohSet(expected.map((row) => ({ name: row.name, type: typeNumber(row.type) ?? -1, data: row.value }))),
      );
      assert.deepEqual(
        body.Answer.map((record: DohRecord) => record.type),
        types.map(typeNumber),
      );
    });
  }

  it('do=0: no RRSIG, and AD still reported (the query sets AD, RFC 6840 §5.7)', async () => {
    const body = await ask('name=secure.test&type=A');
    assert.deepEqual([body.AD, body.Answer.map((record: DohRecord) => record.type)], [true, [1]]);
  });

  it('an unsigned zone: AD false', async () => {
    const body = await ask('name=unsigned.test&type=TXT&do=1');
    assert.deepEqual(
      [body.Status, body.AD, body.Answer.map((record: DohRecord) => record.data)],
      [0, false, ['"v=spf1 " "-all"']],
    );
  });

  it('a bogus zone: Status 2 with a Comment; with cd=1 the data, AD false and CD true', async () => {
    const failed = await ask('name=bogus.test&type=A&do=1');
    assert.deepEqual([failed.Status, failed.AD, failed.Answer], [2, false, undefined]);
    assert.match(failed.Comment, /SERVFAIL/);
    const unchecked = await ask('name=bogus.test&type=A&do=1&cd=1');
    assert.deepEqual([unchecked.Status, unchecked.AD, unchecked.CD], [0, false, true]);
    assert.deepEqual(
      unchecked.Answer.map((record: DohRecord) => [record.type, record.type === 1 ? record.data : '']),
      [
        [1, '192.0.2.50'],
        [46, ''],
      ],
    );
  });

  it('NXDOMAIN in a signed zone: Status 3, AD, and the denial (SOA, NSEC, RRSIGs) in Authority', async () => {
    const body = await ask('name=missing.secure.test&type=A&do=1');
    assert.deepEqual([body.Status, body.AD, body.Answer], [3, true, undefined]);
    const types = new Set(body.Authority.map((record: DohRecord) => record.type));
    assert.deepEqual(
      [...types].sort((a, b) => Number(a) - Number(b)),
      [6, 46, 47],
    );
    const nsec = body.Authority.find((record: DohRecord) => record.type === 47);
    assert.match(nsec.data, /^\S+\.secure\.test\. (?:[A-Z0-9]+ ?)+$/);
  });
});
