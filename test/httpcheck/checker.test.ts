import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { test } from 'node:test';
import type { Resolver } from '../../src/dns/resolver.ts';
import { createHttpChecker } from '../../src/httpcheck/checker.ts';
import { parsePortRanges } from '../../src/httpcheck/config.ts';
import { parseCheckUrl } from '../../src/httpcheck/target-url.ts';

test('without redirects, timings.redirect is 0 however much time passes between two clock reads', async (t) => {
  const server = http.createServer((_request, response) => response.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const port = (server.address() as { port: number }).port;
  // A clock that moves 1 ms at every read, as a busy machine can between two of them.
  let now = 0;
  const resolver = {
    resolveAddresses: async () => [{ address: '127.0.0.1', family: 4 as const }],
  } as unknown as Resolver;
  const checker = createHttpChecker({
    resolver,
    policy: { allowPrivate: true },
    ports: parsePortRanges('1024-65535'),
    timeoutMs: 5_000,
    maxBodyBytes: 1024,
    clock: () => (now += 1),
  });
  const parsed = parseCheckUrl(`http://127.0.0.1:${port}/`, parsePortRanges('1024-65535'));
  assert.ok(parsed.ok);
  const result = await checker.check(parsed.target, 'GET');
  assert.equal(result.status, 200);
  assert.deepEqual(result.redirects, []);
  assert.equal(result.timings.redirect, 0);
  assert.ok(result.timings.total > 0);
});
