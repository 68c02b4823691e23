import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { buildTestApp } from '../support/app.ts';
import { startDnsRouteApps } from '../support/dns-route-apps.ts';

// The record types the API answers, each with its value: shared with test/dns/format.test.ts.
const recordValues: { cases: { label: string; record: Answer; value: string }[] } = JSON.parse(
  readFileSync(new URL('../fixtures/dns/record-values.json', import.meta.url), 'utf8'),
);

const records: Answer[] = [
  ...recordValues.cases.map(({ record }) => record),
  // The CNAME chain www -> web -> example.test, and a name asked in Unicode.
  { type: 'CNAME', name: 'web.example.test', ttl: 130, class: 'IN', data: 'example.test' },
  { type: 'A', name: 'xn--bcher-kva.example.test', ttl: 300, class: 'IN', data: '192.0.2.77' },
  // MX records sent out of order, as a round-robin server does.
  ...(
    [
      [30, 'mx-c.mail.example.test'],
      [10, 'mx-z.mail.example.test'],
      [20, 'mx-b.mail.example.test'],
      [10, 'MX-A.mail.example.test'],
    ] as const
  ).map(
    ([preference, exchange]): Answer => ({
      type: 'MX',
      name: 'mail.example.test',
      ttl: 300,
      class: 'IN',
      data: { preference, exchange },
    }),
  ),
];

describe('GET /api/v1/dns', () => {
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let failingApp: Awaited<ReturnType<typeof buildTestApp>>;
  let close: () => Promise<void>;

  before(async () => {
    ({ app, failingApp, close } = await startDnsRouteApps(records));
  });
  after(() => close());

  const ask = (host: string, type: string, target = () => app) =>
    target().inject({ url: `/api/v1/dns?host=${encodeURIComponent(host)}&record_type=${type}` });

  const cases: [type: string, host: string, values: string[]][] = [
    ...recordValues.cases.map(({ record, value }): [string, string, string[]] => [record.type, record.name, [value]]),
    ['PTR', '192.0.2.10', ['example.test']],
  ];
  for (const [type, host, values] of cases) {
    it(`answers ${type} for ${host} with its value format and TTL`, async () => {
      const response = await ask(host, type);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'NOERROR');
      assert.equal(body.record_type, type);
      assert.deepEqual(
        body.records.map((record: { value: string }) => record.value),
        values,
      );
      for (const record of body.records) assert.ok(Number.isInteger(record.ttl) && record.ttl > 0);
      assert.ok(response.headers['x-ratelimit-remaining']);
    });
  }

  it('lists the CNAMEs on the way before the records, and accepts a lower-case type', async () => {
    const body = (await ask('www.example.test', 'a')).json();
    assert.deepEqual(
      body.records.map((record: { record_type: string; name: string; value: string; ttl: number }) => [
        record.record_type,
        record.name,
        record.value,
        record.ttl,
      ]),
      [
        ['CNAME', 'www.example.test', 'web.example.test', 120],
        ['CNAME', 'web.example.test', 'example.test', 130],
        ['A', 'example.test', '192.0.2.10', 300],
      ],
    );
  });

  it('issue 28: sorts MX records by preference, then by name (case aside), whatever order the server sent', async () => {
    const body = (await ask('mail.example.test', 'MX')).json();
    assert.deepEqual(
      body.records.map((record: { value: string }) => record.value),
      [
        '10 MX-A.mail.example.test',
        '10 mx-z.mail.example.test',
        '20 mx-b.mail.example.test',
        '30 mx-c.mail.example.test',
      ],
    );
  });

  it('converts an internationalised name to punycode', async () => {
    const body = (await ask('bücher.example.test', 'A')).json();
    assert.equal(body.host, 'xn--bcher-kva.example.test');
    assert.deepEqual(body.records[0].value, '192.0.2.77');
  });

  it('answers NXDOMAIN and "no records of this type" as 200 with an empty list', async () => {
    const missing = (await ask('nothing.example.test', 'A')).json();
    assert.deepEqual([missing.status, missing.records], ['NXDOMAIN', []]);
    const noData = (await ask('_sip._tcp.example.test', 'MX')).json();
    assert.deepEqual([noData.status, noData.records], ['NOERROR', []]);
  });

  it('says when an answer came from the cache', async () => {
    await ask('example.test', 'NS');
    assert.equal((await ask('example.test', 'NS')).json().cached, true);
  });

  it('refuses bad input with a 400 naming the parameter', async () => {
    const bad: [string, string, RegExp][] = [
      ['example.test', 'ANY', /record_type.*one of A, AAAA, MX, NS, TXT, CNAME, SOA, PTR, SRV/],
      ['exa mple.test', 'A', /'host'.*white space/],
      ['-.example..test', 'A', /'host'/],
      [`${'a'.repeat(64)}.test`, 'A', /longer than 63/],
      [`${'abcdefghi.'.repeat(26)}test`, 'A', /longer than 253/],
      ['192.0.2.1', 'A', /use record_type=PTR/],
      ['192.1', 'A', /'host'.*ends in a number/],
      ['example.test', '', /record_type/],
      ['not-an-ip', 'PTR', /reverse name/],
    ];
    for (const [host, type, message] of bad) {
      const response = await ask(host, type);
      assert.equal(response.statusCode, 400, `${host} ${type}`);
      assert.match(response.json().error, message);
    }
    const missing = await app.inject({ url: '/api/v1/dns?record_type=A' });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, "Missing required query parameter 'host'.");
  });

  it('reports SERVFAIL, REFUSED and timeouts as 502 saying which', async () => {
    const servfail = await ask('broken.example.test', 'A', () => failingApp);
    assert.equal(servfail.statusCode, 502);
    assert.match(servfail.json().error, /broken\.example\.test A failed: the DNS server answered SERVFAIL/);
    const refused = await ask('refused.example.test', 'A', () => failingApp);
    assert.match(refused.json().error, /answered REFUSED/);
    const slow = await ask('slow.example.test', 'A', () => failingApp);
    assert.equal(slow.statusCode, 502);
    assert.match(slow.json().error, /no DNS server answered in time/);
  });
});
