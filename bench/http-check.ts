// `npm run bench:http-check`: what /api/v1/http's own measurement (`timings.total`) adds over a bare
// Node request doing the same network work, against local servers only. Interleaved rounds of:
// - HTTP/1.1 over TLS: a bare `https.get` on a new connection (the baseline) and the check, both
//   against one local HTTPS server that offers only http/1.1;
// - HTTP/2: a bare `http2.connect` + one request on a new session (the baseline) and the check,
//   against a local server that offers h2.
// Each baseline is timed from the call to the end of the body, as `timings.total` is. Target: the
// check's median within 2 ms of the baseline's.
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import { formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { recordsHandler, startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { createTestPki } from '../test/support/test-pki.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const WARMUP = 50;
const TARGET_MS = 2;
const BODY = Buffer.alloc(16 * 1024, 'x');

const pki = createTestPki();
const now = Date.now();
const certificate = pki.issue('bench', {
  commonName: 'bench.http.test',
  altNames: ['bench.http.test', '127.0.0.1'],
  key: 'ec-p256',
  notBefore: new Date(now - 86_400_000),
  notAfter: new Date(now + 30 * 86_400_000),
});
const answer = (
  _request: unknown,
  response: { writeHead(status: number, headers?: Record<string, string>): unknown; end(body: Buffer): unknown },
) => {
  response.writeHead(200, { 'content-type': 'application/octet-stream' });
  response.end(BODY);
};
const h1Server = https.createServer({ key: certificate.keyPem, cert: certificate.chainPem }, answer);
const h2Server = http2.createSecureServer({ key: certificate.keyPem, cert: certificate.chainPem }, answer);
const listen = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
};
const h1Port = await listen(h1Server);
const h2Port = await listen(h2Server);
const dns = await startFakeDnsServer(
  recordsHandler([{ type: 'A', name: 'bench.http.test', ttl: 300, data: '127.0.0.1' }], 'http.test'),
);
const app = await buildTestApp(
  {
    RATE_LIMITS: 'public=100000000/100000000',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    DNS_SERVERS: formatServer(dns.server),
  },
  { trustedCertificates: [pki.rootPem] },
);

function bareHttps(): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      { host: '127.0.0.1', port: h1Port, path: '/', servername: 'bench.http.test', ca: [pki.rootPem], agent: false },
      (response) => {
        response.on('data', () => {});
        response.on('end', () => {
          request.destroy();
          resolve();
        });
      },
    );
    request.on('error', reject);
  });
}

function bareHttp2(): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://bench.http.test:${h2Port}`, {
      host: '127.0.0.1',
      servername: 'bench.http.test',
      ca: [pki.rootPem],
    });
    session.on('error', reject);
    const stream = session.request({ ':path': '/' });
    stream.on('data', () => {});
    stream.on('end', () => {
      session.destroy();
      resolve();
    });
    stream.on('error', reject);
  });
}

async function check(port: number, version: string): Promise<number> {
  const response = await app.inject({
    url: `/api/v1/http?url=${encodeURIComponent(`https://bench.http.test:${port}/`)}`,
  });
  const body = response.json();
  if (response.statusCode !== 200 || body.http_version !== version || body.body_bytes !== BODY.length) {
    throw new Error(`the check failed: ${response.body}`);
  }
  return body.timings.total;
}

const keys = ['bareHttps', 'checkHttps', 'bareHttp2', 'checkHttp2'] as const;
const samples = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<(typeof keys)[number], number[]>;
const wallTime = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
for (let round = -WARMUP; round < ROUNDS; round++) {
  const figures = {
    bareHttps: await wallTime(bareHttps),
    checkHttps: await check(h1Port, '1.1'),
    bareHttp2: await wallTime(bareHttp2),
    checkHttp2: await check(h2Port, '2'),
  };
  if (round >= 0) for (const key of keys) samples[key].push(figures[key]);
}

const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;
const row = (values: number[]) => ({
  'median ms': quantile(values, 0.5).toFixed(3),
  'p90 ms': quantile(values, 0.9).toFixed(3),
  'p99 ms': quantile(values, 0.99).toFixed(3),
});
console.log(
  `/api/v1/http timings.total against bare Node requests, ${ROUNDS} interleaved rounds, ${BODY.length} B body`,
);
console.table({
  'https.get, new connection (baseline)': row(samples.bareHttps),
  '/api/v1/http timings.total, HTTP/1.1': row(samples.checkHttps),
  'http2.connect + request (baseline)': row(samples.bareHttp2),
  '/api/v1/http timings.total, HTTP/2': row(samples.checkHttp2),
});
let met = true;
for (const [check, bare, label] of [
  ['checkHttps', 'bareHttps', 'HTTP/1.1'],
  ['checkHttp2', 'bareHttp2', 'HTTP/2'],
] as const) {
  const added = quantile(samples[check], 0.5) - quantile(samples[bare], 0.5);
  met &&= added <= TARGET_MS;
  console.log(`${label}: timings.total - baseline at the median: ${added.toFixed(3)} ms (target <= ${TARGET_MS} ms)`);
}
console.log(met ? 'target met' : 'target NOT met');

await app.close();
await dns.close();
h1Server.closeAllConnections();
await new Promise((resolve) => h1Server.close(resolve));
await new Promise((resolve) => h2Server.close(resolve));
pki.remove();
