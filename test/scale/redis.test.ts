import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisTtlCache } from '../../src/cache/redis-ttl-cache.ts';
import { createDnsCacheOver, type StoredAnswer } from '../../src/dns/cache.ts';
import { createRedisRateLimitStore } from '../../src/limits/redis-store.ts';
import { buildTestApp, manualClock } from '../support/app.ts';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { serviceArguments } from '../support/start-command.ts';

if (redisSkipReason) console.log(`# Redis tests skipped: ${redisSkipReason}`);

describe('with Redis (REDIS_URL)', { skip: redisSkipReason, timeout: 90_000 }, () => {
  const suite = redisForSuite();

  it('the store increments all counters or none, and sets each window to expire', async () => {
    const store = createRedisRateLimitStore(suite.client, 'unit:');
    const expiresAt = Date.now() + 60_000;
    const a = { window: 'w1', subject: 's', limit: 1, expiresAt };
    const b = { window: 'w2', subject: 's', limit: 5, expiresAt };
    assert.deepEqual(await store.consume([a, b]), { allowed: true, counts: [1, 1] });
    assert.deepEqual(await store.consume([a, b]), { allowed: false, counts: [1, 1] });
    // b had room, but the refused call left it alone.
    assert.equal(await suite.client.get('unit:w2:s'), '1');
    const ttl = await suite.client.pttl('unit:w2:s');
    assert.ok(ttl > 50_000 && ttl <= 60_000, `pttl ${ttl}`);
  });

  it('a batch adds its amount to every counter or to none, exactly up to the limit', async () => {
    const store = createRedisRateLimitStore(suite.client, 'amount:');
    const expiresAt = Date.now() + 60_000;
    const hourly = { window: 'h', subject: 's', limit: 10, expiresAt };
    const daily = { window: 'd', subject: 's', limit: 100, expiresAt };
    assert.deepEqual(await store.consume([hourly, daily], 3), { allowed: true, counts: [3, 3] });
    assert.deepEqual(await store.consume([hourly, daily], 8), { allowed: false, counts: [3, 3] });
    assert.deepEqual(await store.consume([hourly, daily], 7), { allowed: true, counts: [10, 10] });
    assert.deepEqual(await store.consume([hourly, daily]), { allowed: false, counts: [10, 10] });
    const ttl = await suite.client.pttl('amount:d:s');
    assert.ok(ttl > 50_000 && ttl <= 60_000, `a counter created by a batch expires too (pttl ${ttl})`);
  });

  it('two service processes sharing one Redis give exactly 100 successes and 50 429s for one client', async () => {
    await suite.client.flushall();
    const services = await Promise.all([1, 2].map(() => startServiceProcess({ REDIS_URL: suite.redis.url })));
    try {
      const statuses: number[] = [];
      const remaining: number[] = [];
      for (let i = 0; i < 150; i++) {
        const service = services[i % 2];
        const response = await fetch(`${service?.url}/api/v1/ipv6`);
        await response.arrayBuffer();
        statuses.push(response.status);
        remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
        assert.equal(response.headers.get('x-ratelimit-limit'), '100');
      }
      assert.equal(statuses.filter((status) => status === 200).length, 100);
      assert.equal(statuses.filter((status) => status === 429).length, 50);
      assert.deepEqual(statuses.slice(0, 100), Array(100).fill(200));
      // One shared counter: Remaining falls 99, 98, ... 0 across both processes, then stays 0.
      assert.deepEqual(
        remaining,
        Array.from({ length: 150 }, (_, i) => Math.max(0, 99 - i)),
      );
    } finally {
      await Promise.all(services.map((service) => service.stop()));
    }
  });

  it('WORKERS=2 shares the port and the limit', async () => {
    await suite.client.flushall();
    const service = await startServiceProcess({
      REDIS_URL: suite.redis.url,
      WORKERS: '2',
      RATE_LIMITS: 'public=20/100',
    });
    try {
      const statuses: number[] = [];
      const processes = new Set<string>();
      for (let i = 0; i < 30; i++) {
        // A new connection each time: the kernel spreads connections over the workers' sockets (reusePort).
        const response = await fetch(`${service.url}/api/v1/ipv6`, { headers: { connection: 'close' } });
        await response.arrayBuffer();
        statuses.push(response.status);
        // A request id starts with its worker thread's own random prefix.
        processes.add(String(response.headers.get('x-request-id')).split('-')[0] ?? '');
      }
      assert.equal(processes.size, 2, 'both workers answered');
      assert.equal(statuses.filter((status) => status === 200).length, 20);
      assert.equal(statuses.filter((status) => status === 429).length, 10);
    } finally {
      assert.equal(await service.stop(), 0);
    }
  });

  // That the supervisor announces only once every worker listens, replaces one that dies and stops
  // cleanly just after one died: test/workers/supervisor.test.ts, through its message handling.

  it('WORKERS=2: a start that fails (no worker ever listens) exits 1, not a restart every second', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'netinfo-workers-'));
    try {
      const child = spawn(process.execPath, serviceArguments(), {
        cwd: path.resolve(import.meta.dirname, '..', '..'),
        // An address that is not this machine's (TEST-NET-3): every worker fails to listen, and no
        // name is looked up (a name would go to the system's resolver, off the machine).
        env: {
          ...process.env,
          ...NO_DOWNLOADS_ENV,
          WORKERS: '2',
          REDIS_URL: suite.redis.url,
          HOST: '203.0.113.254',
          PORT: '0',
          DATA_DIR: dataDir,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const code = await Promise.race([exited, sleep(15_000).then(() => 'still running' as const)]);
      if (code === 'still running') child.kill('SIGKILL');
      assert.equal(code, 1, stderr);
      assert.match(stderr, /netinfo could not start: .*EADDRNOTAVAIL/);
      assert.match(stderr, /exited \(1\) before listening/);
      assert.doesNotMatch(stderr, /starting another/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('WORKERS=2: a SIGTERM with a request in flight on each worker ends both and the process, exit 0', async () => {
    const service = await startServiceProcess({ REDIS_URL: suite.redis.url, WORKERS: '2', SHUTDOWN_GRACE_MS: '3000' });
    // On each new connection, one request that says which worker answered it (a request id starts
    // with its worker thread's random prefix), then one whose body never finishes, until both hold one.
    const { port } = new URL(service.url);
    const held: Socket[] = [];
    const holders = new Set<string>();
    for (let i = 0; i < 40 && holders.size < 2; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      held.push(socket);
      socket.write('GET /api/v1/ipv6 HTTP/1.1\r\nHost: a\r\n\r\n');
      const [head] = (await once(socket, 'data')) as [Buffer];
      holders.add(/x-request-id: ([^-\r]+)/i.exec(head.toString())?.[1] ?? '');
      socket.write('POST /api/v1/account/login HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n');
      socket.write('Content-Length: 100\r\n\r\n{"email":');
    }
    assert.equal(holders.size, 2, 'both workers answered');
    const stopped = await Promise.race([service.stop(), sleep(8000).then(() => 'still running')]);
    for (const socket of held) socket.destroy();
    if (stopped !== 0) service.child.kill('SIGKILL');
    assert.equal(stopped, 0);
  });

  it('keeps serving through a Redis outage, reports degraded, and shares limits again once it is back', async () => {
    await suite.client.flushall();
    const app = await buildTestApp({ REDIS_URL: suite.redis.url, RATE_LIMITS: 'public=1000/10000' });
    try {
      const redisState = async () => (await app.inject({ url: '/readyz' })).json().checks.redis.state;
      assert.equal(await redisState(), 'ready');
      assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: '192.0.2.7' })).statusCode, 200);

      await suite.redis.stop();
      for (let i = 0; i < 20; i++) {
        const response = await app.inject({ url: '/api/v1/ipv6', remoteAddress: '192.0.2.7' });
        assert.equal(response.statusCode, 200, `request ${i} during the outage`);
        assert.ok(response.headers['x-ratelimit-remaining']);
      }
      // The connection notices the loss asynchronously (its socket closes): wait for that.
      for (let i = 0; i < 50 && (await redisState()) !== 'degraded'; i++) await sleep(50);
      const degraded = (await app.inject({ url: '/readyz' })).json();
      assert.equal(degraded.status, 'degraded');
      assert.equal(degraded.checks.redis.state, 'degraded');
      assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: '192.0.2.7' })).statusCode, 200);

      await suite.redis.start();
      for (let i = 0; i < 50 && (await redisState()) !== 'ready'; i++) await sleep(100);
      assert.equal(await redisState(), 'ready');
      const response = await app.inject({ url: '/api/v1/ipv6', remoteAddress: '192.0.2.7' });
      assert.equal(response.statusCode, 200);
      // Counting is in Redis again (the restarted server started empty: this is its first count).
      const keys = await suite.client.keys('netinfo:rl:hourly:*');
      assert.equal(keys.length, 1);
    } finally {
      await app.close();
    }
  });

  it('a Redis that hangs (connection up, no answers) is reported degraded too, and ready once it answers', async () => {
    await suite.client.flushall();
    const app = await buildTestApp({ REDIS_URL: suite.redis.url, RATE_LIMITS: 'public=1000/10000' });
    try {
      const readiness = async () => (await app.inject({ url: '/readyz' })).json().checks.redis;
      const call = () => app.inject({ url: '/api/v1/ipv6', remoteAddress: '192.0.2.8' });
      assert.equal((await call()).statusCode, 200);
      assert.equal((await readiness()).state, 'ready');
      suite.redis.freeze();
      try {
        assert.equal((await call()).statusCode, 200, 'served after the command time-out');
        const hung = await readiness();
        assert.equal(hung.state, 'degraded');
        assert.match(hung.detail, /not answering in time/);
      } finally {
        suite.redis.thaw();
      }
      assert.equal((await call()).statusCode, 200);
      assert.equal((await readiness()).state, 'ready');
    } finally {
      await app.close();
    }
  });

  it('the shared DNS cache counts TTLs down across instances', async () => {
    const clock = manualClock('2026-01-01T00:00:00Z');
    const writer = createDnsCacheOver(createRedisTtlCache<StoredAnswer>(suite.client, 'dns-test'), { now: clock.now });
    const reader = createDnsCacheOver(createRedisTtlCache<StoredAnswer>(suite.client, 'dns-test'), { now: clock.now });
    const record = { name: 'example.test', type: 'A' as const, ttl: 300, class: 'IN', data: '192.0.2.1' };
    await writer.set('example.test|A', { rcode: 'NOERROR', answers: [record], authority: [], server: 'x' });
    clock.advance(42_000);
    assert.equal((await reader.get('example.test|A'))?.answers[0]?.ttl, 258);
    const pttl = await suite.client.pttl('netinfo:cache:dns-test:example.test|A');
    assert.ok(pttl > 290_000 && pttl <= 300_000);
  });
});

describe('when Redis is down at startup', () => {
  it('starts within the bounded wait and serves degraded', async () => {
    const started = Date.now();
    // Port 9 on loopback: nothing listens, every connection is refused at once.
    const app = await buildTestApp({ REDIS_URL: 'redis://127.0.0.1:9' });
    try {
      assert.ok(Date.now() - started < 6000);
      const response = await app.inject({ url: '/api/v1/ipv6' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-ratelimit-remaining'], '99');
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().checks.redis.state, 'degraded');
    } finally {
      await app.close();
    }
  });
});
