// Issue 22, item 2: the ping/traceroute caps count the streams of every instance sharing REDIS_URL,
// as leases that their instance renews, so the slots of a crashed instance come back.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { AppDeps } from '../../src/app.ts';
import { createRedisStreamSlots } from '../../src/probes/stream/redis-slots.ts';
import type { SlotGrant, SlotRefusal } from '../../src/probes/stream/slots.ts';
import { buildTestApp } from '../support/app.ts';
import { createFakeSpawner } from '../support/fake-spawner.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { type OpenedStream, openStream, readJson } from '../support/sse-client.ts';

if (redisSkipReason) console.log(`# Redis stream-slot tests skipped: ${redisSkipReason}`);

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 5000) {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('stream caps across instances (REDIS_URL)', { skip: redisSkipReason, timeout: 120_000 }, () => {
  const suite = redisForSuite();

  /** Slots on their own connection, as one instance has them. */
  function instanceSlots(limits: { maxConcurrent: number; maxPerClient: number; leaseMs: number }) {
    const connection = new Redis(suite.redis.url, { maxRetriesPerRequest: 0 });
    connection.on('error', () => {});
    const errors: Error[] = [];
    const slots = createRedisStreamSlots(connection, {
      ...limits,
      now: Date.now,
      onError: (error) => errors.push(error),
    });
    return { slots, connection, errors };
  }

  it('two instances together grant exactly the global cap and the per-client cap; release frees a slot', async () => {
    await suite.client.flushall();
    const limits = { maxConcurrent: 3, maxPerClient: 2, leaseMs: 15_000 };
    const a = instanceSlots(limits);
    const b = instanceSlots(limits);
    try {
      const holdUntil = Date.now() + 20_000;
      const x1 = (await a.slots.acquire('ip:192.0.2.1', holdUntil)) as SlotGrant;
      const x2 = (await b.slots.acquire('ip:192.0.2.1', holdUntil - 5000)) as SlotGrant;
      assert.ok(x1.ok && x2.ok);
      const perClient = (await a.slots.acquire('ip:192.0.2.1', holdUntil)) as SlotRefusal;
      assert.equal(perClient.ok, false);
      assert.equal(perClient.scope, 'client');
      assert.equal(perClient.limit, 2);
      // The earliest of the client's slots ends by its stream's time limit (clocks converted from Redis's).
      assert.ok(Math.abs(perClient.freeByMs - (holdUntil - 5000)) < 1000, `freeBy ${perClient.freeByMs - Date.now()}`);
      const y1 = await b.slots.acquire('ip:192.0.2.2', holdUntil);
      assert.ok(y1.ok);
      const refusals = await Promise.all([
        a.slots.acquire('ip:192.0.2.3', holdUntil),
        b.slots.acquire('ip:192.0.2.4', holdUntil),
      ]);
      for (const refusal of refusals)
        assert.deepEqual({ ...refusal, freeByMs: 0 }, { ok: false, scope: 'server', limit: 3, freeByMs: 0 });
      x2.release();
      x2.release(); // idempotent
      await waitFor(async () => (await suite.client.zcard('netinfo:streams:all')) === 2);
      assert.ok((await a.slots.acquire('ip:192.0.2.3', holdUntil)).ok);
      assert.equal((await b.slots.acquire('ip:192.0.2.4', holdUntil)).ok, false);
      assert.equal(a.errors.length + b.errors.length, 0);
    } finally {
      a.connection.disconnect();
      b.connection.disconnect();
    }
  });

  it('a lease is renewed while its stream runs longer than the lease; one no longer renewed expires', async () => {
    await suite.client.flushall();
    const limits = { maxConcurrent: 1, maxPerClient: 1, leaseMs: 300 };
    const a = instanceSlots(limits);
    const b = instanceSlots(limits);
    try {
      const held = await a.slots.acquire('ip:192.0.2.1', Date.now() + 10_000);
      assert.ok(held.ok);
      // Four lease lengths later the stream still holds its slot.
      await sleep(1200);
      assert.equal((await b.slots.acquire('ip:192.0.2.2', Date.now() + 10_000)).ok, false);
      // The instance loses Redis (as if it crashed): nothing renews, and the slot comes back.
      a.connection.disconnect();
      const lost = Date.now();
      await waitFor(async () => (await b.slots.acquire('ip:192.0.2.2', Date.now() + 10_000)).ok, 2000);
      assert.ok(Date.now() - lost <= 300 + 500, `back after ${Date.now() - lost} ms`);
    } finally {
      a.connection.disconnect();
      b.connection.disconnect();
    }
  });

  async function listeningApp(env: Record<string, string>, deps: AppDeps) {
    const app = await buildTestApp(
      { REDIS_URL: suite.redis.url, ALLOW_PRIVATE_TARGETS: 'true', TRUST_PROXY: 'loopback', ...env },
      deps,
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
  }
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('two apps on one Redis admit exactly STREAM_MAX_CONCURRENT streams together, and the per-client cap across them', async () => {
    await suite.client.flushall();
    const fake = createFakeSpawner(); // children run until the test ends them
    const env = { STREAM_MAX_CONCURRENT: '4', STREAM_MAX_PER_CLIENT: '2' };
    const one = await listeningApp(env, { spawner: fake.spawner });
    const two = await listeningApp(env, { spawner: fake.spawner });
    const streams: OpenedStream[] = [];
    try {
      const url = (base: string) => `${base}/api/v1/ping?host=127.0.0.1&count=10`;
      // Client .1 takes one slot on each app: a third on either is over its cap.
      for (const base of [one.base, two.base]) {
        const stream = await openStream(url(base), from('192.0.2.1'));
        assert.equal(stream.status, 200);
        await stream.nth(1);
        streams.push(stream);
      }
      const overClient = await openStream(url(one.base), from('192.0.2.1'));
      assert.equal(overClient.status, 429);
      const clientBody = await readJson(overClient);
      assert.equal(clientBody.limit, 2);
      assert.match(String(clientBody.error), /you already have 2 ping\/traceroute\/MTR stream/);
      const nowSeconds = Date.now() / 1000;
      // A slot is held at most for the resolve deadline and ping's time limit (10 + 5 s).
      assert.ok(
        Number(clientBody.reset) > nowSeconds && Number(clientBody.reset) <= nowSeconds + 30,
        `reset ${clientBody.reset} within the time limit`,
      );

      // Eight more callers alternate between the apps: exactly two more are admitted in all.
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const stream = await openStream(url(i % 2 === 0 ? one.base : two.base), from(`192.0.2.${10 + i}`));
        statuses.push(stream.status);
        if (stream.status === 200) {
          await stream.nth(1);
          streams.push(stream);
        } else {
          const body = await readJson(stream);
          assert.match(String(body.error), /the server is running its maximum of 4/);
        }
      }
      assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429, 429, 429]);
      assert.equal(one.app.server.listening && fake.children.filter((child) => !child.exited).length, 4);
      // One ends: exactly one slot is free, on either app.
      streams[0]?.abort();
      await waitFor(async () => (await suite.client.zcard('netinfo:streams:all')) === 3);
      const next = await openStream(url(two.base), from('192.0.2.30'));
      assert.equal(next.status, 200);
      await next.nth(1);
      streams.push(next);
      assert.equal((await openStream(url(one.base), from('192.0.2.31'))).status, 429);
    } finally {
      for (const stream of streams) stream.abort();
      await one.app.close();
      await two.app.close();
    }
  });

  it('Redis stopped: per-process caps and degraded in /readyz; shared again once it is back', async () => {
    await suite.client.flushall();
    const fake = createFakeSpawner();
    const env = { STREAM_MAX_CONCURRENT: '1', STREAM_MAX_PER_CLIENT: '5' };
    const one = await listeningApp(env, { spawner: fake.spawner });
    const two = await listeningApp(env, { spawner: fake.spawner });
    const streams: OpenedStream[] = [];
    const open = async (base: string, ip: string) => {
      const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&count=10`, from(ip));
      if (stream.status === 200) {
        await stream.nth(1);
        streams.push(stream);
      } else await readJson(stream);
      return stream.status;
    };
    const readiness = async (app = one.app) => (await app.inject({ url: '/readyz' })).json();
    try {
      assert.equal((await readiness()).checks.redis.state, 'ready');
      await suite.redis.stop();
      await waitFor(async () => (await readiness()).checks.redis.state === 'degraded');
      // Each process counts its own: one stream each, the next refused by its own cap.
      assert.equal(await open(one.base, '192.0.2.1'), 200);
      assert.equal(await open(two.base, '192.0.2.2'), 200);
      assert.equal(await open(one.base, '192.0.2.3'), 429);
      assert.equal(await open(two.base, '192.0.2.4'), 429);
      const degraded = (await readiness()).checks.redis;
      assert.equal(degraded.state, 'degraded');
      assert.match(degraded.detail, /limits per process/);

      await suite.redis.start();
      // Both: app two used to be asked while its own breaker was still open (it probes once a second),
      // and counted in its process (failed once in a full run).
      await waitFor(async () => (await readiness()).checks.redis.state === 'ready', 10_000);
      await waitFor(async () => (await readiness(two.app)).checks.redis.state === 'ready', 10_000);
      for (const stream of streams.splice(0)) stream.abort();
      await waitFor(() => fake.children.every((child) => child.exited));
      // Shared again: the one slot taken through one app is the one slot of both.
      assert.equal(await open(one.base, '192.0.2.5'), 200);
      assert.equal(await suite.client.zcard('netinfo:streams:all'), 1);
      assert.equal(await open(two.base, '192.0.2.6'), 429);
    } finally {
      for (const stream of streams) stream.abort();
      await one.app.close();
      await two.app.close();
    }
  });

  it('two service processes share the cap; kill -9 one holding slots and they come back within the lease', async () => {
    await suite.client.flushall();
    const leaseSeconds = 1;
    const env = {
      REDIS_URL: suite.redis.url,
      ALLOW_PRIVATE_TARGETS: 'true',
      STREAM_MAX_CONCURRENT: '3',
      STREAM_MAX_PER_CLIENT: '10',
      STREAM_SLOT_LEASE_SECONDS: String(leaseSeconds),
    };
    const [one, two] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    assert.ok(one && two);
    const streams: OpenedStream[] = [];
    const ping = (base: string) => openStream(`${base}/api/v1/ping?host=127.0.0.1&count=10`);
    try {
      for (const base of [one.url, one.url, two.url]) {
        const stream = await ping(base);
        assert.equal(stream.status, 200, stream.body());
        await stream.nth(1);
        streams.push(stream);
      }
      for (const base of [one.url, two.url]) {
        const refused = await ping(base);
        assert.equal(refused.status, 429);
        assert.equal((await readJson(refused)).limit, 3);
      }
      // Well past the lease: the leases of live streams are renewed, so still full.
      await sleep(leaseSeconds * 1000 * 2);
      assert.equal((await ping(two.url)).status, 429);

      one.child.kill('SIGKILL');
      const killed = Date.now();
      let admitted = 0;
      await waitFor(async () => {
        const stream = await ping(two.url);
        if (stream.status !== 200) {
          await readJson(stream);
          return false;
        }
        streams.push(stream);
        admitted += 1;
        return admitted === 2;
      }, 10_000);
      const backAfterMs = Date.now() - killed;
      assert.ok(
        backAfterMs <= leaseSeconds * 1000 + 1000,
        `the crashed instance's slots came back after ${backAfterMs} ms`,
      );
      // Exactly its two: the cap holds again.
      assert.equal((await ping(two.url)).status, 429);
    } finally {
      for (const stream of streams) stream.abort();
      await one.stop();
      await two.stop();
    }
  });
});
