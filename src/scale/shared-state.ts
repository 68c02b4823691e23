import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { OwnerChanges } from '../accounts/owner-changes.ts';
import { createRedisTtlCache } from '../cache/redis-ttl-cache.ts';
import { createMemoryTtlCache, type TtlCache } from '../cache/ttl-cache.ts';
import { createDnsCacheOver, createMemoryDnsCache, type DnsCache, type StoredAnswer } from '../dns/cache.ts';
import { type CircuitBreaker, createCircuitBreaker } from '../limits/circuit-breaker.ts';
import type { FallbackState } from '../limits/fallback.ts';
import { createFallbackRateLimitStore } from '../limits/fallback-store.ts';
import { createMemoryRateLimitStore } from '../limits/memory-store.ts';
import { createRedisRateLimitStore } from '../limits/redis-store.ts';
import type { RateLimitStore } from '../limits/store.ts';
import { type Cancellations, createMemoryCancellations } from '../mcp/cancellations.ts';
import { createRedisCancellations } from '../mcp/redis-cancellations.ts';
import { createMemoryMeshStore } from '../mesh/memory-store.ts';
import { createRedisMeshStore } from '../mesh/redis-store.ts';
import type { MeshStore, MeshStoreOptions } from '../mesh/store.ts';
import { createFallbackStreamSlots } from '../probes/stream/fallback-slots.ts';
import { createRedisStreamSlots } from '../probes/stream/redis-slots.ts';
import { createStreamSlots, type StreamSlots } from '../probes/stream/slots.ts';
import { createRedisOwnerChanges } from './redis-owner-changes.ts';

export interface SharedState {
  readonly rateLimitStore: RateLimitStore;
  dnsCache(maxEntries: number): DnsCache;
  ttlCache<T>(namespace: string, maxEntries: number): TtlCache<T>;
  /** Null with a single process. */
  readonly ownerChanges: OwnerChanges | null;
  /** Call once: one set of caps for all the tools. */
  streamSlots(limits: StreamSlotLimits): StreamSlots;
  /** Where measurements live: this process, or Redis when a mesh key is given (a mesh of instances). */
  meshStore(options: MeshStoreOptions): MeshStore;
  /** MCP tool calls cancelled from any process (mcp/cancellations.ts). */
  readonly toolCancellations: Cancellations;
}

export interface StreamSlotLimits {
  maxConcurrent: number;
  maxPerClient: number;
  /** With Redis: how long a slot outlives its instance's last renewal. */
  leaseMs: number;
}

export interface SharedStateConfig {
  readonly redisUrl: string | null;
}

/** How long startup waits for Redis before serving degraded (per-process limits) instead. */
const REDIS_STARTUP_WAIT_MS = 3000;
/** How long a failed command keeps a connected Redis reported as degraded. */
const HUNG_REPORT_MS = 60_000;

export async function createSharedState(
  config: SharedStateConfig,
  app: FastifyInstance,
  now: () => number,
): Promise<SharedState> {
  if (config.redisUrl === null) {
    return {
      rateLimitStore: createMemoryRateLimitStore(now),
      dnsCache: (maxEntries) => createMemoryDnsCache({ maxEntries, now }),
      ttlCache: (_namespace, maxEntries) => createMemoryTtlCache({ maxEntries, now }),
      ownerChanges: null,
      streamSlots: (limits) => createStreamSlots(limits),
      meshStore: (options) => createMemoryMeshStore({ ttlMs: options.ttlMs, now }),
      toolCancellations: createMemoryCancellations(),
    };
  }

  // Loaded only here: a single instance never pays for loading the Redis client at startup.
  const { createRedisClient, throttledReporter } = await import('./redis.ts');
  const redis = createRedisClient(config.redisUrl);
  // ioredis reports every failed reconnect; one line a minute says enough (and never the URL,
  // which may hold a password).
  const reportOutage = throttledReporter((error) =>
    app.log.error({ err: { message: error.message } }, 'Redis unavailable: limits per process, caches bypassed'),
  );
  redis.on('error', reportOutage);
  // One breaker for every twin: they all wait on the same server, so the first few time-outs of
  // any of them send all of them to their in-process side until a background PING answers.
  const breaker = createCircuitBreaker({
    probe: () => redis.ping(),
    onOpen: (error) =>
      app.log.warn(
        { err: { message: error.message } },
        'Redis is not answering in time: requests use the in-process fallbacks while it is probed in the background',
      ),
    onClose: () => app.log.info('Redis answers again: the circuit breaker is closed'),
    now,
  });
  const cacheFailed = (error: Error) => {
    breaker.failure(error);
    reportOutage(error);
  };
  let readyAt = Number.NEGATIVE_INFINITY;
  redis.on('ready', () => {
    readyAt = now();
    app.log.info('Redis connected');
  });
  const toolCancellations = createRedisCancellations(redis);
  app.addHook('onClose', async () => {
    breaker.close();
    toolCancellations.close();
    redis.disconnect();
  });
  // Serve only once connected (or after a bounded wait), so a fresh instance does not count its
  // first requests in its own memory while the connection is still being made.
  const connected = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  await Promise.race([connected, sleep(REDIS_STARTUP_WAIT_MS, undefined, { ref: false })]);

  const rateLimitStore = createFallbackRateLimitStore({
    primary: createRedisRateLimitStore(redis),
    fallback: createMemoryRateLimitStore(now),
    breaker,
    onOutage: reportOutage,
    onRecovery: () => app.log.info('Redis back: rate limits shared again'),
    now,
  });
  // A connection that is up is not enough: a Redis that hangs (stopped, partitioned) keeps its
  // socket, and only the commands' time-outs say so. So: degraded also while the store's last call
  // failed, if that was since the connection was (re)made and within the last minute (without
  // traffic nothing would clear the flag).
  // The stream slots fall back the same way; their last failure counts as the store's does.
  const fallbacks: FallbackState[] = [rateLimitStore];
  app.readiness.add('redis', () => {
    if (redis.status !== 'ready') {
      return { state: 'degraded', detail: `Redis ${redis.status}: limits per process, caches bypassed` };
    }
    if (breaker.open) {
      return {
        state: 'degraded',
        detail: 'Redis is not answering in time: limits per process, caches bypassed (circuit breaker open, probing)',
      };
    }
    const hung = fallbacks.some(
      (state) => state.degraded && state.lastFailureAt > readyAt && now() - state.lastFailureAt < HUNG_REPORT_MS,
    );
    if (hung) {
      return { state: 'degraded', detail: 'Redis is not answering in time: limits per process, caches bypassed' };
    }
    return { state: 'ready' };
  });
  return {
    rateLimitStore,
    dnsCache: () =>
      createDnsCacheOver(behindBreaker(createRedisTtlCache<StoredAnswer>(redis, 'dns', cacheFailed), breaker), { now }),
    ttlCache: <T>(namespace: string) => behindBreaker(createRedisTtlCache<T>(redis, namespace, cacheFailed), breaker),
    ownerChanges: createRedisOwnerChanges(redis, breaker),
    streamSlots: (limits) => {
      const slots = createFallbackStreamSlots({
        primary: createRedisStreamSlots(redis, { ...limits, now, onError: reportOutage }),
        fallback: createStreamSlots(limits),
        breaker,
        onOutage: reportOutage,
        onRecovery: () => app.log.info('Redis back: stream caps shared again'),
        now,
      });
      fallbacks.push(slots);
      return slots;
    },
    meshStore: (options) => {
      if (options.secret === null) return createMemoryMeshStore({ ttlMs: options.ttlMs, now });
      // Meshes with different keys on one Redis never meet: the keys' names carry a hash of the key.
      const scope = createHash('sha256').update(options.secret).digest('hex').slice(0, 12);
      return createRedisMeshStore(redis, { ...options, prefix: `netinfo:mesh:${scope}:`, log: app.log });
    },
    toolCancellations,
  };
}

function behindBreaker<T>(cache: TtlCache<T>, breaker: CircuitBreaker): TtlCache<T> {
  return {
    get: (key) => (breaker.open ? Promise.resolve(undefined) : cache.get(key)),
    set: (key, value, ttlSeconds) => (breaker.open ? Promise.resolve() : cache.set(key, value, ttlSeconds)),
  };
}
