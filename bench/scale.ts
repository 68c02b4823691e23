// `npm run bench:scale`: /api/v1/ipv6 and /api/v1/json with the in-process rate-limit store, with
// the Redis store, and with WORKERS=2 (Redis) in the same run, rounds interleaved. Not pinned to
// cores: WORKERS=2 is about using both.
import autocannon from 'autocannon';
import { startRedis } from '../test/support/redis-server.ts';
import { startServiceProcess } from '../test/support/service-process.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const redis = await startRedis();
const common = { RATE_LIMITS: 'public=1000000000/1000000000', DATA_DIR: '.tmp/bench-data' };
const variants = {
  'in-process store': common,
  'Redis store': { ...common, REDIS_URL: redis.url },
  'WORKERS=2 + Redis': { ...common, REDIS_URL: redis.url, WORKERS: '2' },
};
const results: Record<string, Record<string, number[]>> = {};
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, env] of Object.entries(variants)) {
      const service = await startServiceProcess(env);
      try {
        for (const path of ['/api/v1/ipv6', '/api/v1/json']) {
          await autocannon({ url: `${service.url}${path}`, connections: 50, duration: 1 });
          const result = await autocannon({ url: `${service.url}${path}`, connections: 50, duration: SECONDS });
          if (result.non2xx > 0) throw new Error(`${name} ${path}: ${result.non2xx} non-2xx`);
          const row = results[path] ?? {};
          results[path] = row;
          row[name] = [...(row[name] ?? []), result.requests.average];
        }
      } finally {
        await service.stop();
      }
    }
  }
} finally {
  await redis.stop();
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
for (const [path, row] of Object.entries(results)) {
  const base = median(row['in-process store'] ?? []);
  console.log(`${path}, 50 connections, ${ROUNDS} x ${SECONDS} s, median req/s:`);
  console.table(
    Object.fromEntries(
      Object.entries(row).map(([name, values]) => [
        name,
        { 'req/s': Math.round(median(values)), 'vs in-process': (median(values) / base).toFixed(2) },
      ]),
    ),
  );
}
