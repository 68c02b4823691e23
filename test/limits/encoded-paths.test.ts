import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { buildTestApp } from '../support/app.ts';

// Regression: the rate-limit hook decided "API request" from the raw URL while the router decodes
// the path, so `/%61pi/v1/ipv6` answered 200 with no limits and ignored an unknown key (401 on
// /api/v1/ipv6). Every spelling of an API path must now be the same request (counted, key
// checked) or a 404 that is counted: never an uncounted answer.

/** The spellings of `/api/v1/<rest>` a client can send; the router matches the first two. */
function spellings(path: string): string[] {
  const rest = path.slice('/api/v1'.length);
  return [
    `/%61pi/v1${rest}`,
    `/a%70i/v1${rest}`,
    `/%2561pi/v1${rest}`, // double encoding: decoded once by the router, so no route
    `//api/v1${rest}`,
    `/api/v1/.${rest}`,
    `/API/v1${rest}`,
    `${path}/`,
    `${path};x=1`,
    `/api%2Fv1${rest}`,
  ];
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
}

let app: Awaited<ReturnType<typeof buildTestApp>>;
let port: number;

/** A request with the path exactly as written (no client-side normalisation), from 127.0.0.1. */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });
}

before(async () => {
  app = await buildTestApp({ RATE_LIMITS: 'public=100000/1000000' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
after(() => app.close());

/** Every documented operation outside the account API (which has limits of its own), as method and path. */
async function apiOperations(): Promise<[string, string][]> {
  const document = (await app.inject({ url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations: [string, string][] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    if (!template.startsWith('/api/v1/') || template.startsWith('/api/v1/account')) continue;
    const path = template
      .replace(/\{ip\}/g, '192.0.2.1')
      .replace(/\{asn\}/g, 'AS64496')
      .replace(/\{[^}]+\}/g, 'x');
    for (const method of Object.keys(methods)) operations.push([method.toUpperCase(), path]);
  }
  return operations;
}

test('every spelling of every API path is counted once and has its key checked', async () => {
  const operations = await apiOperations();
  assert.ok(operations.length >= 8, `the OpenAPI document lists the API (${operations.length} operations)`);
  const unknownKey = { authorization: `Bearer ${generateApiKey()}` };
  let remaining = Number((await send('GET', '/api/v1/ipv6')).headers['x-ratelimit-remaining']);
  const expectCounted = (answer: Answer, what: string) => {
    assert.ok(answer.headers['x-ratelimit-limit'], `${what} answered ${answer.status} with X-RateLimit-Limit`);
    remaining -= 1;
    assert.equal(Number(answer.headers['x-ratelimit-remaining']), remaining, `${what} counted once`);
  };
  for (const [method, path] of operations) {
    const canonical = await send(method, path);
    expectCounted(canonical, `${method} ${path}`);
    for (const spelling of spellings(path)) {
      const what = `${method} ${spelling}`;
      const answer = await send(method, spelling);
      expectCounted(answer, what);
      // The route's own answer, or a refusal (a 404, or another route's 400: `/api/v1/json/` is
      // /api/v1/json/{ip} with an empty address): never a success the canonical path does not give.
      assert.ok(
        answer.status === canonical.status || answer.status >= 400,
        `${what}: ${answer.status}, the route's answer or a refusal`,
      );
      const withKey = await send(method, spelling, unknownKey);
      expectCounted(withKey, `${what} with an unknown key`);
      assert.equal(withKey.status, 401, `${what}: an unknown key is refused`);
    }
  }
});

test('the router matches the encoded spellings: they are the same request, with the same answer', async () => {
  const canonical = await send('GET', '/api/v1/ipv6');
  for (const spelling of ['/%61pi/v1/ipv6', '/a%70i/v1/ipv6', '/api/v1/ipv%36']) {
    const answer = await send('GET', spelling);
    assert.equal(answer.status, 200, spelling);
    assert.equal(answer.headers['x-ratelimit-limit'], canonical.headers['x-ratelimit-limit'], spelling);
    assert.equal(answer.headers['cache-control'], canonical.headers['cache-control'], spelling);
  }
  // Another method on the decoded path is the path's 405, as on the canonical spelling.
  assert.equal((await send('DELETE', '/%61pi/v1/ipv6')).status, 405);
});

test('a percent-encoded account path is the account API: its own limits, its own session check', async () => {
  const answer = await send('GET', '/%61pi/v1/account');
  assert.equal(answer.status, 401);
  assert.ok(answer.headers['x-ratelimit-limit'], 'counted by the account API limit');
  assert.equal(answer.headers['cache-control'], 'no-store', "the account scope's hooks ran");
});

test('paths outside the API that match no route are counted too; health checks are not', async () => {
  const missing = await send('GET', '/no-such-page');
  assert.equal(missing.status, 404);
  assert.ok(missing.headers['x-ratelimit-limit']);
  for (const path of ['/healthz', '/%68ealthz']) {
    const health = await send('GET', path);
    assert.equal(health.status, 200, path);
    assert.equal(health.headers['x-ratelimit-limit'], undefined, path);
  }
});
