import type { ClientContext, Redis, Result } from 'ioredis';
import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

/**
 * All-or-nothing increment in one round trip: if every counter stays within its limit after adding
 * the amount, add it to all (setting the window's expiry on creation); otherwise add to none.
 * Atomic on the Redis server, so several instances sharing it count exactly.
 * KEYS: the counters. ARGV: limit_1, expiresAtMs_1, limit_2, expiresAtMs_2, ..., amount.
 */
const CONSUME_SCRIPT = `
local amount = tonumber(ARGV[#KEYS * 2 + 1])
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  if counts[i] + amount > tonumber(ARGV[i * 2 - 1]) then allowed = 0 end
end
if allowed == 1 then
  for i, key in ipairs(KEYS) do
    local before = counts[i]
    counts[i] = redis.call('INCRBY', key, amount)
    if before == 0 then redis.call('PEXPIREAT', key, ARGV[i * 2]) end
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
    async consume(counters: readonly CounterRequest[], amount = 1): Promise<ConsumeResult> {
      const args: (string | number)[] = [counters.length];
      for (const counter of counters) args.push(`${keyPrefix}${counter.window}:${counter.subject}`);
      for (const counter of counters) args.push(counter.limit, Math.ceil(counter.expiresAt));
      args.push(amount);
      const [allowed, ...counts] = await redis.netinfoConsume(...args);
      return { allowed: allowed === 1, counts };
    },
    async close() {},
  };
}
