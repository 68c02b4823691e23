// A Fastify hello world in netinfo's place for `npm run bench:instructions` (BENCH_SERVER_ARGS=bench/fastify-floor.ts):
// /api/v1/ipv6's body (an object made and stringified per request, as netinfo's is), and with
// FLOOR_HEADERS=1 the eight headers netinfo adds to it, set with reply.header() as netinfo's hooks do.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const withHeaders = process.env.FLOOR_HEADERS === '1';
let served = 0;

app.get('/readyz', () => 'ok');
app.get('/api/v1/ipv6', (request, reply) => {
  if (withHeaders) {
    served++;
    reply.header('x-request-id', `floor-${served.toString(36)}`);
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', '*');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-ratelimit-limit', 100);
    reply.header('x-ratelimit-remaining', 99);
    reply.header('x-ratelimit-reset', 1795906800);
    reply.header('cache-control', 'no-store');
  }
  reply.header('content-type', 'application/json; charset=utf-8');
  const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
  reply.send(JSON.stringify({ ip: request.ip, is_ipv4: true, is_ipv6: false, protocol: 'IPv4', timestamp }));
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening on ${address}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
