import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createResolver, type Resolver } from '../../src/dns/resolver.ts';
import { HttpGetError, type HttpGetOptions, httpGet } from '../../src/whois/rdap/http-get.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { type FakeHttpServer, startFakeHttpServer } from '../support/fake-http-server.ts';
import { createTestPki, opensslAvailable, type TestPki } from '../support/test-pki.ts';

/** The GET behind RDAP: names through the project's resolver, the target policy on every hop. */
describe('httpGet', () => {
  let dns: FakeDnsServer;
  let resolver: Resolver;
  let http: FakeHttpServer;
  let https: FakeHttpServer | null = null;
  let pki: TestPki | null = null;

  before(async () => {
    dns = await startFakeDnsServer(
      recordsHandler(
        [
          { type: 'A', name: 'rdap.one.test', ttl: 60, data: '127.0.0.1' },
          { type: 'A', name: 'rdap.two.test', ttl: 60, data: '127.0.0.1' },
        ],
        'test',
      ),
    );
    resolver = createResolver({ servers: [dns.server] });
    http = await startFakeHttpServer((path) => {
      if (path === '/moved') return { status: 301, headers: { location: `http://rdap.two.test:${http.port}/here` } };
      if (path === '/here') return { body: { ok: true } };
      if (path === '/loop') return { status: 302, headers: { location: '/loop' } };
      if (path === '/away') return { status: 307, headers: { location: 'http://nowhere.test/' } };
      if (path === '/huge') return { body: 'x'.repeat(100_000) };
      if (path === '/slow') return { body: 'late', delayMs: 2000 };
      return { status: 404, body: 'no' };
    });
    if (opensslAvailable()) {
      pki = createTestPki();
      const now = Date.now();
      const certificate = pki.issue('rdap', {
        commonName: 'rdap.one.test',
        altNames: ['rdap.one.test'],
        key: 'ec-p256',
        notBefore: new Date(now - 86_400_000),
        notAfter: new Date(now + 86_400_000),
      });
      https = await startFakeHttpServer(() => ({ body: { secure: true } }), {
        key: certificate.keyPem,
        cert: certificate.chainPem,
      });
    }
  });
  after(async () => {
    await http.close();
    await https?.close();
    await dns.close();
    pki?.remove();
  });

  const options = (overrides: Partial<HttpGetOptions> = {}): HttpGetOptions => ({
    resolver,
    policy: { allowPrivate: true },
    timeoutMs: 1000,
    maxBytes: 10_000,
    ...overrides,
  });
  const failure = async (url: string, overrides: Partial<HttpGetOptions> = {}) => {
    try {
      await httpGet(url, options(overrides));
    } catch (error) {
      assert.ok(error instanceof HttpGetError);
      return error;
    }
    assert.fail(`${url} did not fail`);
  };

  it('follows a redirect to another host, resolved and connected to like the first', async () => {
    const answer = await httpGet(`http://rdap.one.test:${http.port}/moved`, options());
    assert.equal(answer.status, 200);
    assert.equal(answer.url, `http://rdap.two.test:${http.port}/here`);
    assert.equal(answer.address, '127.0.0.1');
    assert.deepEqual(JSON.parse(answer.body), { ok: true });
    assert.equal(http.requests.at(-1)?.host, `rdap.two.test:${http.port}`);
  });

  it('gives any status as a result, and fails with a reason for everything else', async () => {
    assert.equal((await httpGet(`http://rdap.one.test:${http.port}/missing`, options())).status, 404);
    assert.equal((await failure(`http://rdap.one.test:${http.port}/loop`)).kind, 'redirects');
    assert.equal((await failure(`http://rdap.one.test:${http.port}/away`)).kind, 'dns');
    const huge = await failure(`http://rdap.one.test:${http.port}/huge`);
    assert.equal(huge.kind, 'too-large');
    const slow = await failure(`http://rdap.one.test:${http.port}/slow`, { timeoutMs: 200 });
    assert.equal(slow.kind, 'timeout');
    assert.equal((await failure('ftp://rdap.one.test/')).kind, 'bad-url');
  });

  it('connects only to the ports it is given (RDAP: 443 and 80; redirects: test/whois/route.test.ts)', async () => {
    const before = http.requests.length;
    const first = await failure(`http://rdap.one.test:${http.port}/here`, { ports: [443, 80] });
    assert.equal(first.kind, 'port');
    assert.equal(first.message, `not asked: port ${http.port} is not one of the ports connected to (443, 80)`);
    assert.equal(http.requests.length, before, 'nothing was sent');
  });

  it('refuses a loopback server under the target policy, before connecting', async () => {
    const before = http.requests.length;
    const refused = await failure(`http://rdap.one.test:${http.port}/here`, { policy: { allowPrivate: false } });
    assert.equal(refused.kind, 'forbidden');
    assert.match(refused.message, /rdap\.one\.test resolves to 127\.0\.0\.1 is a loopback address/);
    assert.equal(http.requests.length, before);
    // null: the operator's own URL (RDAP_BOOTSTRAP_URL), not checked.
    assert.equal((await httpGet(`http://rdap.one.test:${http.port}/here`, options({ policy: null }))).status, 200);
  });

  it('speaks HTTPS with SNI, trusting only the given CA when one is given', {
    skip: opensslAvailable() ? false : 'no openssl',
  }, async () => {
    const url = `https://rdap.one.test:${https?.port}/domain/x`;
    const answer = await httpGet(url, options({ ca: [pki?.rootPem ?? ''] }));
    assert.deepEqual(JSON.parse(answer.body), { secure: true });
    const untrusted = await failure(url);
    assert.equal(untrusted.kind, 'tls');
  });
});
