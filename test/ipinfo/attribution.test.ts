import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp } from '../support/app.ts';

/**
 * Issue 28: every answer built from the licensed IP data (GeoLite2, DB-IP, the ASN compilation)
 * carries the credit its licences ask for, not only /api/v1/json's.
 */
describe('X-Data-Attribution on every answer built from the IP data', () => {
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let credit: string;
  before(async () => {
    app = await buildTestApp({ HOSTNAME_TIMEOUT_MS: '0' });
    credit = String((await app.inject({ url: '/api/v1/json/8.8.8.8' })).headers['x-data-attribution']);
    assert.match(credit, /GeoLite2 data created by MaxMind/);
  });
  after(() => app.close());

  it('on /api/v1/asn, /api/v1/batch and the text face, the same credit as /api/v1/json', async () => {
    const answers = [
      await app.inject({ url: '/api/v1/asn/AS15169' }),
      await app.inject({
        method: 'POST',
        url: '/api/v1/batch',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(['8.8.8.8', 'AS15169']),
      }),
      await app.inject({ url: '/country?ip=8.8.8.8' }),
      await app.inject({ url: '/city?ip=81.2.69.142' }),
      await app.inject({ url: '/asn?ip=8.8.8.8' }),
      await app.inject({ url: '/json?ip=8.8.8.8' }),
    ];
    for (const response of answers) {
      assert.equal(response.statusCode, 200, response.body.slice(0, 100));
      assert.equal(response.headers['x-data-attribution'], credit, response.body.slice(0, 100));
    }
    // `/ip` repeats the caller's address and reads no data (issue 28, item 2): it credits nothing.
    assert.equal((await app.inject({ url: '/ip' })).headers['x-data-attribution'], undefined);
  });

  it('is documented on each of those operations', async () => {
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const [path, method] of [
      ['/api/v1/asn/{asn}', 'get'],
      ['/api/v1/batch', 'post'],
      ['/city', 'get'],
      ['/api/v1/json', 'get'],
    ] as const) {
      assert.ok(document.paths[path]?.[method]?.responses['200'].headers?.['X-Data-Attribution'], `${method} ${path}`);
    }
  });

  it('credits the data in the footer of every page that shows it: home, address and AS lookups', async () => {
    for (const url of ['/', '/lookup/8.8.8.8', '/lookup/AS15169']) {
      const page = await app.inject({ url, headers: { accept: 'text/html' } });
      assert.equal(page.statusCode, 200, url);
      const footer = page.body.slice(page.body.indexOf('<footer'));
      assert.match(footer, /<p>IP data: GeoLite2 data created by MaxMind/, url);
    }
  });
});
