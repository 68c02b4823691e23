import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES, chooseCoding } from '../../src/http/compression.ts';
import { buildTestApp } from '../support/app.ts';
import { createFakeSpawner } from '../support/fake-spawner.ts';
import { openStream, parseSseBody } from '../support/sse-client.ts';

test('issue 18: gzip and brotli answers decompress to the same JSON as the plain one', async () => {
  const app = await buildTestApp();
  try {
    const plain = await app.inject({ url: '/api/v1/openapi.json' });
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, no compression');
    assert.ok(plain.rawPayload.length > COMPRESSION_THRESHOLD_BYTES);
    for (const [encoding, decompress] of [
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
    ] as const) {
      const response = await app.inject({ url: '/api/v1/openapi.json', headers: { 'accept-encoding': encoding } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], encoding);
      assert.match(String(response.headers.vary), /accept-encoding/i);
      assert.ok(
        response.rawPayload.length < plain.rawPayload.length / 3,
        `${encoding}: ${response.rawPayload.length} bytes`,
      );
      assert.deepEqual(JSON.parse(decompress(response.rawPayload).toString('utf8')), plain.json(), encoding);
    }
    // A browser's list: brotli is preferred.
    const browser = await app.inject({
      url: '/api/v1/openapi.json',
      headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
    });
    assert.equal(browser.headers['content-encoding'], 'br');
    const refusing = await app.inject({ url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'identity' } });
    assert.equal(refusing.headers['content-encoding'], undefined);
  } finally {
    await app.close();
  }
});

test('issue 18: answers under the threshold, the account API and the dashboard page are sent uncompressed', async () => {
  const app = await buildTestApp();
  try {
    const headers = { 'accept-encoding': 'gzip, br' };
    const json = await app.inject({ url: '/api/v1/json', headers });
    assert.equal(json.statusCode, 200);
    assert.ok(json.rawPayload.length < COMPRESSION_THRESHOLD_BYTES);
    assert.equal(json.headers['content-encoding'], undefined, 'a small answer is not worth compressing');
    assert.deepEqual(JSON.parse(json.payload).ip, '127.0.0.1');
    const page = await app.inject({ url: '/dashboard', headers });
    assert.ok(page.rawPayload.length > COMPRESSION_THRESHOLD_BYTES, 'large enough to be compressed otherwise');
    assert.equal(page.headers['content-encoding'], undefined, 'the page that carries a CSRF token (BREACH)');
    const account = await app.inject({ url: '/api/v1/account', headers });
    assert.equal(account.headers['content-encoding'], undefined);
    // Static files are compressed like API answers.
    const script = await app.inject({ url: '/dashboard/assets/dashboard.js', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(script.headers['content-encoding'], 'gzip');
  } finally {
    await app.close();
  }
});

test('issue 18: an SSE stream is never compressed, whatever the client accepts', async () => {
  const hops = Array.from({ length: 25 }, (_, i) => ` ${i + 1}  192.0.2.${i + 1}  0.029 ms  0.006 ms  0.006 ms`);
  const fake = createFakeSpawner((child) => {
    child.stdout(['traceroute to 127.0.0.1 (127.0.0.1), 30 hops max, 60 byte packets', ...hops, ''].join('\n'));
    child.exit(0);
  });
  const app = await buildTestApp(
    { ALLOW_PRIVATE_TARGETS: 'true', TRACEROUTE_HOSTNAME_WAIT_MS: '0' },
    { spawner: fake.spawner },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const stream = await openStream(`${base}/api/v1/traceroute?host=127.0.0.1`, { 'accept-encoding': 'gzip, br' });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.equal(stream.headers['content-encoding'], undefined);
    await stream.done;
    const events = parseSseBody(stream.body());
    assert.ok(stream.body().length > COMPRESSION_THRESHOLD_BYTES, `${stream.body().length} bytes of events`);
    assert.equal(events.filter((event) => event.type === 'hop').length, 25);
  } finally {
    await app.close();
  }
});

test('issue 18: the OpenAPI document and the static files carry an ETag and answer If-None-Match with 304', async () => {
  const app = await buildTestApp();
  try {
    for (const url of ['/api/v1/openapi.json', '/dashboard/assets/dashboard.css', '/dashboard/assets/dashboard.js']) {
      const first = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/, `${url}: weak, as it covers every encoding`);
      for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
        const again = await app.inject({ url, headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'gzip' } });
        assert.equal(again.statusCode, 304, `${url} with If-None-Match: ${ifNoneMatch}`);
        assert.equal(again.rawPayload.length, 0);
        assert.equal(again.headers.etag, etag);
      }
      const changed = await app.inject({ url, headers: { 'if-none-match': '"something-else"' } });
      assert.equal(changed.statusCode, 200, url);
    }
    // The document names the origin it was fetched from, so another Host is another ETag.
    const [one, other] = await Promise.all(
      ['a.example.test', 'b.example.test'].map((host) =>
        app.inject({ url: '/api/v1/openapi.json', headers: { host } }),
      ),
    );
    assert.notEqual(one?.headers.etag, other?.headers.etag);
  } finally {
    await app.close();
  }
});

test('Accept-Encoding negotiation: q-values, the wildcard, refusals, br on a tie', () => {
  const cases: [string | undefined, string | undefined, string][] = [
    [undefined, undefined, 'no header: identity'],
    ['', undefined, 'empty: identity'],
    ['identity', undefined, 'identity only'],
    ['gzip', 'gzip', 'curl --compressed sends gzip among others'],
    ['x-gzip', 'gzip', 'the old alias'],
    ['gzip, deflate, br, zstd', 'br', "a browser's list: br on a tie"],
    ['br;q=0.5, gzip', 'gzip', 'the higher q wins'],
    ['GZIP;Q=0.8', 'gzip', 'case-insensitive'],
    ['*', 'br', 'anything'],
    ['*, br;q=0', 'gzip', 'anything but br'],
    ['gzip;q=0, br;q=0', undefined, 'both refused'],
    ['deflate, zstd', undefined, 'only codings not offered'],
    ['gzip;q=abc', undefined, 'a malformed weight counts as 0'],
  ];
  for (const [header, expected, why] of cases) assert.equal(chooseCoding(header), expected, why);
});
