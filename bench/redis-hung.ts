// `node bench/redis-hung.ts`: per-request latency of /api/v1/ipv6 while Redis is frozen (SIGSTOP:
// the connection stays up, nothing answers; commands time out after 500 ms). The baseline, in the
// same run, is the same service with Redis answering; the first requests after the freeze are what
// every request cost before the circuit breaker (they open it).
import { startRedis } from '../test/support/redis-server.ts';
import { startServiceProcess } from '../test/support/service-process.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const redis = await startRedis();
const service = await startServiceProcess({
  RATE_LIMITS: 'public=1000000000/1000000000',
  DATA_DIR: '.tmp/bench-data',
  REDIS_URL: redis.url,
});
const timed = async () => {
  const started = performance.now();
  const response = await fetch(`${service.url}/api/v1/ipv6`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return performance.now() - started;
};
const series = async () => {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await timed());
  return times;
};
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    requests: times.length,
    'p50 ms': Number((sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)),
    'max ms': Number((sorted.at(-1) ?? 0).toFixed(1)),
  };
};
try {
  await series();
  const answering = await series();
  redis.freeze();
  const frozen = await series();
  redis.thaw();
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as { checks: { redis: { state: string } } };
  console.log(`/api/v1/ipv6, one request at a time:`);
  console.table({
    'Redis answering': summary(answering),
    'Redis frozen: first 3': summary(frozen.slice(0, 3)),
    'Redis frozen: the rest': summary(frozen.slice(3)),
    'Redis frozen: all': summary(frozen),
  });
  console.log(`/readyz right after SIGCONT (the probe runs every second): ${readyz.checks.redis.state}`);
} finally {
  redis.thaw();
  await service.stop();
  await redis.stop();
}
