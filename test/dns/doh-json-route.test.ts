import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { buildTestApp } from '../support/app.ts';
import { startDnsRouteApps } from '../support/dns-route-apps.ts';

/**
 * /api/v1/dns-json against a local fake DNS server: the schema of Google's and Cloudflare's DoH
 * JSON APIs, field by field, and what it refuses. The DNSSEC side (AD, RRSIG, CD) is in
 * test/dns/dnssec.test.ts, against a real validating resolver.
 */

const records: Answer[] = [
  { type: 'A', name: 'example.test', ttl: 300, class: 'IN', data: '192.0.2.10' },
  { type: 'AAAA', name: 'example.test', ttl: 300, class: 'IN', data: '2001:db8::10' },
  { type: 'MX', name: 'example.test', ttl: 3600, class: 'IN', data: { preference: 10, exchange: 'mail.example.test' } },
  { type: 'TXT', name: 'example.test', ttl: 60, class: 'IN', data: ['v=spf1 ', 'include:_spf.example.test -all'] },
  { type: 'CNAME', name: 'www.example.test', ttl: 120, class: 'IN', data: 'example.test' },
];

// Cloudflare's documented example (developers.cloudflare.com/1.1.1.1/encryption/dns-over-https/
// make-api-requests/dns-json/), whose schema Cloudflare says follows Google's: the keys, in order,
// and the type of each value.
const CLOUDFLARE_EXAMPLE = {
  Status: 0,
  TC: false,
  RD: true,
  RA: true,
  AD: true,
  CD: false,
  Question: [{ name: 'example.com.', type: 28 }],
  Answer: [{ name: 'example.com.', type: 28, TTL: 1726, data: '2606:2800:220:1:248:1893:25c8:1946' }],
};

function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]));
  }
  return typeof value;
}

describe('GET /api/v1/dns-json', () => {
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let failingApp: Awaited<ReturnType<typeof buildTestApp>>;
  let close: () => Promise<void>;

  before(async () => {
    ({ app, failingApp, close } = await startDnsRouteApps(records));
  });
  after(() => close());

  const ask = (query: string, headers: Record<string, string> = {}, target = () => app) =>
    target().inject({ url: `/api/v1/dns-json?${query}`, headers });

  it("answers in the shape of Cloudflare's documented example, key for key", async () => {
    const response = await ask('name=example.test&type=AAAA');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body), Object.keys(CLOUDFLARE_EXAMPLE));
    assert.deepEqual(shapeOf(body), shapeOf(CLOUDFLARE_EXAMPLE));
    assert.deepEqual(body.Question, [{ name: 'example.test.', type: 28 }]);
    assert.deepEqual(body.Answer, [{ name: 'example.test.', type: 28, TTL: 300, data: '2001:db8::10' }]);
    assert.deepEqual([body.Status, body.TC, body.RD, body.CD], [0, false, true, false]);
    assert.ok(response.headers['x-ratelimit-remaining'], 'rate limited like /dns');
  });

  it('takes the type as a name in any case or as a number, and A when absent', async () => {
    for (const [query, type] of [
      ['name=example.test&type=mx', 15],
      ['name=example.test&type=15', 15],
      ['name=example.test&type=TYPE15', 15],
      ['name=example.test', 1],
      ['name=example.test&type=', 1],
    ] as const) {
      const body = (await ask(query)).json();
      assert.deepEqual(body.Question, [{ name: 'example.test.', type }], query);
      assert.equal(body.Answer[0].type, type, query);
    }
  });

  it("gives data as Google's and Cloudflare's examples do: trailing dots, TXT strings quoted", async () => {
    const mx = (await ask('name=example.test&type=MX')).json();
    assert.equal(mx.Answer[0].data, '10 mail.example.test.');
    const txt = (await ask('name=example.test&type=TXT')).json();
    assert.equal(txt.Answer[0].data, '"v=spf1 " "include:_spf.example.test -all"');
    const chain = (await ask('name=www.example.test&type=A')).json();
    assert.deepEqual(chain.Answer, [
      { name: 'www.example.test.', type: 5, TTL: 120, data: 'example.test.' },
      { name: 'example.test.', type: 1, TTL: 300, data: '192.0.2.10' },
    ]);
  });

  it('answers NXDOMAIN as Status 3 with HTTP 200 and the SOA in Authority, no Answer', async () => {
    const response = await ask('name=missing.example.test&type=A');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.Status, 3);
    assert.equal(body.Answer, undefined);
    assert.equal(body.Authority.length, 1);
    assert.deepEqual(Object.keys(body.Authority[0]), ['name', 'type', 'TTL', 'data']);
    assert.equal(body.Authority[0].type, 6);
    assert.match(body.Authority[0].data, /^\S+\. \S+\. \d+ \d+ \d+ \d+ \d+$/);
  });

  it('says application/dns-json when the Accept header or ct asks for it, application/json otherwise', async () => {
    const plain = await ask('name=example.test');
    assert.match(String(plain.headers['content-type']), /^application\/json/);
    const accepted = await ask('name=example.test', { accept: 'application/dns-json' });
    assert.match(String(accepted.headers['content-type']), /^application\/dns-json(;|$)/);
    const listed = await ask('name=example.test', { accept: 'text/html, application/dns-json;q=0.9' });
    assert.match(String(listed.headers['content-type']), /^application\/dns-json(;|$)/);
    const byCt = await ask('name=example.test&ct=application/dns-json');
    assert.match(String(byCt.headers['content-type']), /^application\/dns-json(;|$)/);
    assert.deepEqual(accepted.json(), plain.json());
  });

  it('accepts the parameters DoH clients add (random_padding, edns_client_subnet) and ignores them', async () => {
    const response = await ask('name=example.test&random_padding=xxxxxxxx&edns_client_subnet=192.0.2.0/24');
    assert.equal(response.statusCode, 200, response.body);
  });

  it("reports the resolver's SERVFAIL and REFUSED as Status 2 and 5 with a Comment, HTTP 200", async () => {
    const servfail = await ask('name=broken.example.test', {}, () => failingApp);
    assert.equal(servfail.statusCode, 200);
    assert.deepEqual([servfail.json().Status, servfail.json().Answer], [2, undefined]);
    assert.match(servfail.json().Comment, /SERVFAIL from 127\.0\.0\.1/);
    const refused = await ask('name=refused.example.test', {}, () => failingApp);
    assert.deepEqual([refused.statusCode, refused.json().Status], [200, 5]);
  });

  it('answers 502 when no server answers at all', async () => {
    const response = await ask('name=slow.example.test', {}, () => failingApp);
    assert.equal(response.statusCode, 502);
    assert.match(response.json().error, /no DNS server answered in time/);
  });

  const refusals: Array<[string, RegExp]> = [
    ['name=example.test&type=ANY', /'type': ANY is not a record type this endpoint asks for/],
    ['name=example.test&type=255', /'type': 255 is not a record type/],
    ['name=example.test&type=AXFR', /'type': AXFR is not/],
    ['name=example.test&type=BOGUS', /'type': must be a record type mnemonic/],
    ['name=example.test&type=0', /'type': must be/],
    ['name=example.test&type=65536', /'type': must be/],
    ['name=example.test&do=yes', /'do': must be true, false, 1 or 0/],
    ['name=example.test&cd=2', /'cd': must be/],
    ['name=example.test&ct=application/dns-message', /'ct': must be application\/dns-json/],
    ['name=', /'name': must be a domain name/],
    ['name=a..example.test', /'name': must be a domain name \(host name has an empty label\)/],
    [`name=${'a'.repeat(64)}.test`, /'name': must be a domain name/],
    ['name=example.test&foo=1', /Unknown query parameter 'foo'/],
    ['type=A', /name/],
  ];
  for (const [query, message] of refusals) {
    it(`refuses ${query} with a 400 naming the parameter`, async () => {
      const response = await ask(query);
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().error, message);
    });
  }
});
