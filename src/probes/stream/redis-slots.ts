import { randomUUID } from 'node:crypto';
import type { ClientContext, Redis, Result } from 'ioredis';
import type { SlotGrant, SlotRefusal, StreamSlots } from './slots.ts';

/**
 * Takes a slot in one round trip, atomically on the Redis server: drops the leases that expired
 * (their instance stopped renewing: it crashed or lost Redis), then checks the per-client cap, the
 * global one and the caller's fair share of the free slots (slots.ts, `refusedScope`: the same rule
 * in the same order), and only if all have room adds the lease to both sets. Each set holds lease ids
 * scored by the lease's expiry; an id ends in the stream's hold time so a refusal can say by when a
 * slot is free at the latest. Time is the Redis server's, so instances with skewed clocks agree.
 * KEYS: the global set, the client's set. ARGV: lease id, lease ms, hold ms, max concurrent, max per client.
 * Returns {1, lease, redisNow} or {0, scope, freeBy, redisNow[, share]}.
 */
const ACQUIRE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leaseMs = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local function freeBy(key)
  local leases = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local best = nil
  for i = 1, #leases, 2 do
    local hold = tonumber(string.match(leases[i], ':(%d+)$'))
    local bound = math.max(hold, tonumber(leases[i + 1]))
    if best == nil or bound < best then best = bound end
  end
  return best
end
local maxAll = tonumber(ARGV[4])
local maxPer = tonumber(ARGV[5])
local held = redis.call('ZCARD', KEYS[2])
if held >= maxPer then
  return {0, 'client', tostring(freeBy(KEYS[2])), tostring(now)}
end
local free = maxAll - redis.call('ZCARD', KEYS[1])
if free <= 0 then
  return {0, 'server', tostring(freeBy(KEYS[1])), tostring(now)}
end
if free * maxPer <= held * maxAll then
  return {0, 'share', tostring(freeBy(KEYS[2])), tostring(now), tostring(math.min(maxPer, math.ceil(free * maxPer / maxAll)))}
end
local lease = ARGV[1] .. ':' .. tostring(now + tonumber(ARGV[3]))
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + leaseMs, lease)
  redis.call('PEXPIRE', key, leaseMs)
end
return {1, lease, tostring(now)}
`;

/**
 * Extends a lease by the lease length from now (adding it back if it expired meanwhile, since its
 * stream still runs), and keeps both sets from expiring while it is in them.
 * KEYS: the global set, the client's set. ARGV: lease, lease ms.
 */
const RENEW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leaseMs = tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + leaseMs, ARGV[1])
  if redis.call('PTTL', key) < leaseMs then redis.call('PEXPIRE', key, leaseMs) end
end
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    netinfoSlotAcquire(...args: (string | number)[]): Result<(string | number)[], Context>;
    netinfoSlotRenew(...args: (string | number)[]): Result<number, Context>;
  }
}

export interface RedisStreamSlotsOptions {
  maxConcurrent: number;
  maxPerClient: number;
  /** How long a slot outlives its instance's last renewal; renewed every third of it. */
  leaseMs: number;
  now: () => number;
  /** A failed renewal or release (the lease then expires on its own within leaseMs). */
  onError: (error: Error) => void;
  keyPrefix?: string;
}

/**
 * Stream slots as leases in Redis, counted across every instance and worker that shares the server.
 * The instance renews its leases while their streams run; the leases of an instance that crashed
 * expire within `leaseMs`. `acquire` rejects when Redis does not answer (see fallback-slots.ts).
 */
export function createRedisStreamSlots(redis: Redis, options: RedisStreamSlotsOptions): StreamSlots {
  redis.defineCommand('netinfoSlotAcquire', { numberOfKeys: 2, lua: ACQUIRE_SCRIPT });
  redis.defineCommand('netinfoSlotRenew', { numberOfKeys: 2, lua: RENEW_SCRIPT });
  const prefix = options.keyPrefix ?? 'netinfo:';
  const allKey = `${prefix}streams:all`;
  const clientKey = (client: string) => `${prefix}streams:client:${client}`;
  let open = 0;

  return {
    get open() {
      return open;
    },
    async acquire(client, holdUntilMs): Promise<SlotGrant | SlotRefusal> {
      const keys = [allKey, clientKey(client)];
      const holdMs = Math.max(0, Math.ceil(holdUntilMs - options.now()));
      const reply = await redis.netinfoSlotAcquire(
        ...keys,
        randomUUID(),
        options.leaseMs,
        holdMs,
        options.maxConcurrent,
        options.maxPerClient,
      );
      if (reply[0] !== 1) {
        const scope = reply[1] === 'client' || reply[1] === 'share' ? reply[1] : 'server';
        // From the Redis server's clock to this instance's.
        const freeByMs = Number(reply[2]) - Number(reply[3]) + options.now();
        const limit =
          scope === 'share' ? Number(reply[4]) : scope === 'client' ? options.maxPerClient : options.maxConcurrent;
        return { ok: false, scope, limit, freeByMs };
      }
      const lease = String(reply[1]);
      open += 1;
      const renew = setInterval(
        () => {
          redis.netinfoSlotRenew(...keys, lease, options.leaseMs).catch(options.onError);
        },
        Math.max(1, Math.floor(options.leaseMs / 3)),
      );
      // A renewal never keeps the process alive on its own.
      renew.unref();
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          open -= 1;
          clearInterval(renew);
          redis
            .multi()
            .zrem(allKey, lease)
            .zrem(keys[1] as string, lease)
            .exec()
            .catch(options.onError);
        },
      };
    },
  };
}
