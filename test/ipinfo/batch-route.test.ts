import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Resolver } from '../../src/dns/resolver.ts';
import { distinctItems, parseBatchBody } from '../../src/ipinfo/batch.ts';
import { BATCH_HOSTNAME_CONCURRENCY } from '../../src/ipinfo/schema.ts';
import { buildTestApp } from '../support/app.ts';
import { createFakeResolver } from '../support/fake-resolver.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

test('batch bodies: the items, or a 400 saying which rule the body breaks', () => {
  assert.deepEqual(parseBatchBody('["8.8.8.8", "AS1"]'), ['8.8.8.8', 'AS1']);
  const refused: [string | undefined, RegExp][] = [
    [undefined, /the body is empty/],
    ['  ', /the body is empty/],
    ['[1,', /the body is not valid JSON/],
    ['{"a":1}', /not an object/],
    ['"8.8.8.8"', /not a string/],
    ['null', /not null/],
    ['[]', /the array is empty/],
    [JSON.stringify(Array.from({ length: 1001 }, (_, i) => `10.0.${i >> 8}.${i & 255}`)), /1001 items; at most 1000/],
    ['["8.8.8.8", 5]', /item 1 \(counting from 0\) is a number, not a string/],
    ['["8.8.8.8", null]', /item 1 .* is null/],
    ['[["8.8.8.8"]]', /item 0 .* is an array/],
    ['[{}]', /item 0 .* is an object/],
  ];
  for (const [body, message] of refused) {
    assert.throws(
      () => parseBatchBody(body),
      (error: Error & { status: number }) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /^Invalid batch: /);
        assert.match(error.message, message, String(body));
        return true;
      },
    );
  }
});

test('a batch answers and counts its distinct items, in the order first sent', () => {
  assert.deepEqual(distinctItems(['8.8.8.8']), ['8.8.8.8']);
  assert.deepEqual(distinctItems(['8.8.8.8', 'AS1', '8.8.8.8', 'AS1', '1.1.1.1']), ['8.8.8.8', 'AS1', '1.1.1.1']);
  // Items are compared as sent: each spelling is its own key in the answer.
  assert.deepEqual(distinctItems(['2001:db8::1', '2001:DB8::1']), ['2001:db8::1', '2001:DB8::1']);
});

describe('POST /api/v1/batch with the embedded data', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let resolver: ReturnType<typeof createFakeResolver>;
  before(async () => {
    resolver = createFakeResolver({ names: { '8.8.8.8': 'dns.google', '1.1.1.1': 'one.one.one.one' } });
    app = await buildTestApp({}, { resolver });
  });
  after(() => app?.close());

  const batch = (items: unknown, query = '', headers: Record<string, string> = JSON_TYPE) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/batch${query}`,
      headers,
      payload: typeof items === 'string' ? items : JSON.stringify(items),
    });

  it('answers each item as /json/{ip} or /asn/{asn} would, keyed as sent, errors per item', async () => {
    const items = [
      '8.8.8.8',
      '2001:4860:4860::8888',
      'AS15169',
      'as13335',
      'not-an-ip',
      'AS0x',
      '010.1.1.1',
      '192.168.1.1',
      'AS4294967295',
      '::ffff:1.1.1.1',
    ];
    const response = await batch(items);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const body = response.json();
    assert.deepEqual(Object.keys(body), items, 'one key per item, as sent, in order');
    assert.deepEqual(resolver.reverseAsked, [], 'no reverse lookups unless fields asks for hostname');
    // Without fields, no hostname: compare with /json/{ip} minus its hostname.
    for (const ip of ['8.8.8.8', '2001:4860:4860::8888', '192.168.1.1', '::ffff:1.1.1.1']) {
      const single = (await app.inject({ url: `/api/v1/json/${ip}` })).json();
      delete single.hostname;
      assert.deepEqual(body[ip], single, ip);
    }
    assert.equal(body['::ffff:1.1.1.1'].mappedFrom, '::ffff:1.1.1.1');
    for (const asn of ['AS15169', 'as13335']) {
      assert.deepEqual(body[asn], (await app.inject({ url: `/api/v1/asn/${asn}` })).json(), asn);
    }
    assert.match(body['not-an-ip'].error, /^Not an IP address or an ASN/);
    assert.match(body.AS0x.error, /^Not an ASN/);
    assert.match(body['010.1.1.1'].error, /leading zeros/);
    assert.deepEqual(body.AS4294967295, { error: 'The loaded ASN data has no prefixes of AS4294967295.' });
  });

  it('DEL and C1 controls in keys and answers are escaped, as in every JSON answer (the body is written as a buffer)', async () => {
    const items = ['bad\u009b[31m', 'AS\u007f1', '8.8.8.8'];
    const response = await batch(items);
    assert.equal(response.statusCode, 200, response.body);
    assert.doesNotMatch(response.body, /[\u007f-\u009f]/, 'no raw DEL or C1 control');
    assert.match(response.body, /"bad\\u009b\[31m":/);
    assert.deepEqual(Object.keys(response.json()), items, 'the same text to a JSON reader');
    assert.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body));
  });

  it('duplicates are answered once', async () => {
    const body = (await batch(['8.8.8.8', 'AS15169', '8.8.8.8', 'AS15169'], '?fields=ip,asn,hostname')).json();
    assert.deepEqual(Object.keys(body), ['8.8.8.8', 'AS15169']);
    assert.deepEqual(body['8.8.8.8'], { ip: '8.8.8.8', hostname: 'dns.google' });
    assert.deepEqual(body.AS15169, { asn: 'AS15169' });
  });

  it('fields: hostname only when named; names of either answer are valid; others a 400 listing them', async () => {
    const body = (await batch(['1.1.1.1', 'AS13335'], '?fields=hostname,network.asn,prefixCount')).json();
    assert.deepEqual(body['1.1.1.1'], { hostname: 'one.one.one.one', network: { asn: 'AS13335' } });
    assert.deepEqual(Object.keys(body.AS13335), ['prefixCount']);
    const refused = await batch(['1.1.1.1'], '?fields=ip,prefixes.ipv5');
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error, /no answer has 'prefixes\.ipv5'; valid names: ip, .*prefixes\.ipv4/);
  });

  it('issue 28: fields applies to AS items with their own names; naming none of a kind present is a 400 saying so', async () => {
    const mixed = (await batch(['8.8.8.8', 'AS15169'], '?fields=ip,location.countryCode,asn,name')).json();
    assert.deepEqual(mixed['8.8.8.8'], { ip: '8.8.8.8', location: { countryCode: 'US' } });
    assert.deepEqual(mixed.AS15169, { asn: 'AS15169', name: 'Google LLC' });
    // Address fields only, with an AS in the batch: not "AS15169": {}.
    const onlyAddress = await batch(['8.8.8.8', 'AS15169'], '?fields=ip,location.countryCode');
    assert.equal(onlyAddress.statusCode, 400);
    assert.match(
      onlyAddress.json().error,
      /^Invalid query parameter 'fields': it names no field of an AS's answer, so AS15169 would be answered \{\}; add one or more of asn, name, /,
    );
    const onlyAs = await batch(['AS15169', '1.1.1.1'], '?fields=prefixCount');
    assert.equal(onlyAs.statusCode, 400);
    assert.match(onlyAs.json().error, /no field of an address's answer, so 1\.1\.1\.1 would be answered \{\}/);
    // The same fields are fine when the batch holds no item of the other kind, or a name both answers have.
    assert.equal((await batch(['8.8.8.8'], '?fields=ip')).statusCode, 200);
    assert.deepEqual((await batch(['AS15169', '8.8.8.8'], '?fields=security')).statusCode, 200);
  });

  it('refuses whole: not JSON, not an array, empty, too many, a non-string item (400), over 1 MB (413), other types (415)', async () => {
    const cases: [unknown, Record<string, string>, number, RegExp][] = [
      ['', JSON_TYPE, 400, /the body is empty/],
      ['[', JSON_TYPE, 400, /not valid JSON/],
      [{ ips: ['8.8.8.8'] }, JSON_TYPE, 400, /not an object/],
      [[], JSON_TYPE, 400, /the array is empty/],
      [Array(1001).fill('8.8.8.8'), JSON_TYPE, 400, /1001 items/],
      [['8.8.8.8', 8], JSON_TYPE, 400, /item 1 .* a number/],
      [[`${'x'.repeat(1_048_600)}`], JSON_TYPE, 413, /larger than 1 MB/],
      [['8.8.8.8'], { 'content-type': 'text/plain' }, 415, /Content-Type: application\/json/],
      [['8.8.8.8'], { 'content-type': 'application/x-www-form-urlencoded' }, 415, /application\/json/],
      [['8.8.8.8'], {}, 415, /application\/json/],
    ];
    for (const [items, headers, status, message] of cases) {
      const response = await batch(items, '', headers);
      assert.equal(response.statusCode, status, `${status}: ${response.body.slice(0, 200)}`);
      assert.deepEqual(Object.keys(response.json()), ['error']);
      assert.match(response.json().error, message);
    }
    const charset = await batch(['8.8.8.8'], '', { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(charset.statusCode, 200, 'a charset parameter is fine');
  });

  it('a CORS preflight for a POST with a JSON body is allowed: scripts on other sites can send batches', async () => {
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/batch',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(response.statusCode, 204);
    assert.match(String(response.headers['access-control-allow-methods']), /\bPOST\b/);
    assert.match(String(response.headers['access-control-allow-headers']), /Content-Type/i);
    assert.equal(response.headers['access-control-allow-credentials'], undefined, 'never with cookies');
  });

  it('GET is a 405 naming POST; OpenAPI documents the operation and its counting', async () => {
    const response = await app.inject({ url: '/api/v1/batch' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'POST, OPTIONS');
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const operation = doc.paths['/api/v1/batch'].post;
    assert.match(operation.description, /each distinct item counts as one request/);
    assert.match(operation.description, /refused whole with the 429\s+body and counts nothing/);
    assert.equal(operation.requestBody.content['application/json'].schema.maxItems, 1000);
    assert.ok(operation.responses['413'] && operation.responses['415']);
  });
});

test('hostnames of a batch: at most BATCH_HOSTNAME_CONCURRENCY lookups at once, each bounded, in-flight ones shared', {
  timeout: 30_000,
}, async () => {
  let running = 0;
  let most = 0;
  const asked: string[] = [];
  const resolver: Resolver = {
    query: async () => {
      throw new Error('not used');
    },
    resolveAddresses: async () => [],
    reverse: async (ip, options) => {
      asked.push(ip);
      running++;
      most = Math.max(most, running);
      // 9.9.9.9 never answers in time: the lookup's own time limit ends it.
      const delay = ip === '9.9.9.9' ? 5_000 : 20;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, options?.timeoutMs ?? delay)));
      running--;
      return delay > (options?.timeoutMs ?? Infinity) ? null : `host-${ip}.test`;
    },
  };
  const app = await buildTestApp({ HOSTNAME_TIMEOUT_MS: '200', RATE_LIMITS: 'public=100000/100000' }, { resolver });
  try {
    const items = Array.from({ length: 200 }, (_, i) => `11.0.${i >> 8}.${i & 255}`);
    // /api/v1/json about one of them is already resolving when the batch starts: the batch joins it.
    const single = app.inject({ url: `/api/v1/json/${items[0]}` });
    await new Promise((resolve) => setImmediate(resolve));
    const [response, first] = await Promise.all([
      app.inject({
        method: 'POST',
        url: '/api/v1/batch?fields=ip,hostname',
        headers: JSON_TYPE,
        payload: JSON.stringify([...items, '9.9.9.9']),
      }),
      single,
    ]);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body[items[199] as string].hostname, `host-${items[199]}.test`);
    assert.deepEqual(body['9.9.9.9'], { ip: '9.9.9.9' }, 'no name in time: omitted');
    assert.equal(first.json().hostname, `host-${items[0]}.test`);
    // The cap is on the batch's lookups; the one /api/v1/json started runs beside them.
    assert.ok(most <= BATCH_HOSTNAME_CONCURRENCY + 1, `${most} lookups at once`);
    assert.ok(most >= BATCH_HOSTNAME_CONCURRENCY / 2, `${most}: the cap is used, lookups do run concurrently`);
    assert.equal(asked.filter((ip) => ip === items[0]).length, 1, 'the in-flight lookup was shared');
    assert.equal(new Set(asked).size, asked.length, 'each address asked once');
  } finally {
    await app.close();
  }
});
