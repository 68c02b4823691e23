import type { ClientContext, Redis, Result } from 'ioredis';
import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

/**
 * All-or-nothing increment in one round trip: if every counter is below its limit, increment all
 * (setting the window's expiry on creation); otherwise increment none. Atomic on the Redis server,
 * so several instances sharing it count exactly.
 * KEYS: the counters. ARGV: limit_1, expiresAtMs_1, limit_2, expiresAtMs_2, ...
 */
const CONSUME_SCRIPT = `
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  if counts[i] >= tonumber(ARGV[i * 2 - 1]) then allowed = 0 end
end
if allowed == 1 then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    if counts[i] == 1 then redis.call('PEXPIREAT', key, ARGV[i * 2]) end
  end
end
return {allowed, unpack(counts)}
`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    netinfoConsume(...args: (string | number)[]): Result<number[], Context>;
  }
}

/** Rate-limit counters in Redis, exact across every instance that shares the server. */
export function createRedisRateLimitStore(redis: Redis, keyPrefix = 'netinfo:'): RateLimitStore {
  redis.defineCommand('netinfoConsume', { lua: CONSUME_SCRIPT });
  return {
    async consume(counters: readonly CounterRequest[]): Promise<ConsumeResult> {
      const args: (string | number)[] = [counters.length];
      for (const counter of counters) args.push(`${keyPrefix}${counter.window}:${counter.subject}`);
      for (const counter of counters) args.push(counter.limit, Math.ceil(counter.expiresAt));
      const [allowed, ...counts] = await redis.netinfoConsume(...args);
      return { allowed: allowed === 1, counts };
    },
    async close() {},
  };
}
