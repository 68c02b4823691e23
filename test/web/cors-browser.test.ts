// The API as a script on another site reads it, in Debian's headless Chromium: the response headers
// a client needs (rate limits, request id) must be readable across origins, with and without a key
// (a key makes the browser send a preflight first).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { chromiumSkipReason, startAppAndBrowser } from '../support/chromium.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';

if (chromiumSkipReason) console.log(`# ${chromiumSkipReason}`);

const READ = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id', 'cache-control'];

test('a script on another origin reads the answer and its headers, with and without a key', {
  skip: chromiumSkipReason,
  timeout: 120_000,
}, async () => {
  const { base: api, page, close } = await startAppAndBrowser();
  // Another port is another origin.
  const site = await startLocalHttpServer();
  site.set('/', { body: '<!doctype html><title>another site</title>', headers: { 'content-type': 'text/html' } });
  try {
    await page.goto(`${site.origin}/`);
    const call = (authorization: string | null) =>
      page.evaluate(
        async ({ url, authorization, names }) => {
          const response = await fetch(url, authorization ? { headers: { authorization } } : {});
          const body = (await response.json()) as { ip?: string; error?: string };
          return { status: response.status, body, headers: names.map((name) => response.headers.get(name)) };
        },
        { url: `${api}/api/v1/ipv6`, authorization, names: READ },
      );

    const open = await call(null);
    assert.equal(open.status, 200);
    assert.equal(open.body.ip, '127.0.0.1');
    const [limit, remaining, reset, requestId, cacheControl] = open.headers;
    assert.equal(limit, '100');
    assert.equal(remaining, '99');
    assert.match(String(reset), /^\d{10}$/);
    assert.match(String(requestId), /^[0-9a-f]{8}-[0-9a-z]+$/);
    assert.equal(cacheControl, 'no-store');

    // A key (here an unknown one) is an Authorization header: the browser asks first (OPTIONS).
    const keyed = await call(`Bearer ${generateApiKey()}`);
    assert.equal(keyed.status, 401);
    assert.match(String(keyed.body.error), /key/i, 'the error body is readable too');
    assert.equal(keyed.headers[1], '98', 'a refused key is counted against the address, and the script sees it');
    assert.match(String(keyed.headers[3]), /^[0-9a-f]{8}-[0-9a-z]+$/);
  } finally {
    await site.close();
    await close();
  }
});
