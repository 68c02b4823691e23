// `npm run bench:ssl-protocols`: what protocols=true adds to /api/v1/ssl (issue 24's target: within
// 1.5x the time of a plain /ssl to the same local server). Interleaved rounds of a plain /ssl and
// /ssl?protocols=true over HTTP against a TLS server in its own process: one that accepts every
// version (the worst case: every probe gets a ServerHello) with an EC P-256 and with an RSA 2048
// certificate (whose signatures cost the server more), and one that accepts TLSv1.2 and TLSv1.3
// only, as most servers are configured today.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { recordsHandler, startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { createTestPki, type KeyKind } from '../test/support/test-pki.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const pki = createTestPki();
const dns = await startFakeDnsServer(
  recordsHandler([{ type: 'A', name: 'bench.tls.test', ttl: 300, data: '127.0.0.1' }], 'tls.test'),
);

async function startServer(key: KeyKind, minVersion: string) {
  const now = Date.now();
  const certificate = pki.issue(`bench-${key}`, {
    commonName: 'bench.tls.test',
    altNames: ['bench.tls.test'],
    key,
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 30 * 86_400_000),
  });
  const keyFile = `${certificate.certPath}.key`;
  const chainFile = `${certificate.certPath}.chain`;
  writeFileSync(keyFile, certificate.keyPem);
  writeFileSync(chainFile, certificate.chainPem);
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'tls-server.ts')], {
    env: { ...process.env, BENCH_KEY_FILE: keyFile, BENCH_CERT_FILE: chainFile, BENCH_MIN_VERSION: minVersion },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(/listening on (\d+)/.exec(chunk.toString())?.[1])));
    child.once('exit', (code) => reject(new Error(`the TLS server exited (${code})`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

const app = await buildTestApp(
  { RATE_LIMITS: 'public=100000000/100000000', ALLOW_PRIVATE_TARGETS: 'true', DNS_SERVERS: formatServer(dns.server) },
  { trustedCertificates: [pki.rootPem] },
);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;

const get = async (url: string) => {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body}`);
  return performance.now() - started;
};
const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;

const table: Record<string, Record<string, string>> = {};
let worst = 0;
const profiles = [
  { name: 'all versions, EC', key: 'ec-p256', minVersion: 'TLSv1' },
  { name: 'all versions, RSA', key: 'rsa2048', minVersion: 'TLSv1' },
  { name: 'TLSv1.2+, RSA', key: 'rsa2048', minVersion: 'TLSv1.2' },
] as const;
for (const { name, key, minVersion } of profiles) {
  const server = await startServer(key, minVersion);
  const plain: number[] = [];
  const protocols: number[] = [];
  const url = `${base}/api/v1/ssl?host=bench.tls.test&port=${server.port}`;
  const answer = (await fetch(`${url}&protocols=true`).then((response) => response.json())) as {
    protocols: Record<string, boolean | null>;
  };
  const expected = minVersion === 'TLSv1' ? [true, true, true, true] : [false, false, true, true];
  if (JSON.stringify(Object.values(answer.protocols)) !== JSON.stringify(expected)) {
    throw new Error(`${name}: unexpected protocols ${JSON.stringify(answer.protocols)}`);
  }
  for (let round = -20; round < ROUNDS; round++) {
    const keep = round >= 0; // the first rounds warm up JIT and sockets
    const a = await get(url);
    const b = await get(`${url}&protocols=true`);
    if (keep) {
      plain.push(a);
      protocols.push(b);
    }
  }
  server.stop();
  const ratio = quantile(protocols, 0.5) / quantile(plain, 0.5);
  worst = Math.max(worst, ratio);
  table[`${name}: /api/v1/ssl`] = {
    'median ms': quantile(plain, 0.5).toFixed(2),
    'p90 ms': quantile(plain, 0.9).toFixed(2),
    ratio: '1.00',
  };
  table[`${name}: ?protocols=true`] = {
    'median ms': quantile(protocols, 0.5).toFixed(2),
    'p90 ms': quantile(protocols, 0.9).toFixed(2),
    ratio: ratio.toFixed(2),
  };
}
console.log(`/api/v1/ssl with and without protocols=true, ${ROUNDS} interleaved rounds, server in its own process`);
console.table(table);
console.log(`worst ratio of medians ${worst.toFixed(2)} (target: at most 1.50) ${worst <= 1.5 ? 'met' : 'NOT MET'}`);

await app.close();
await dns.close();
pki.remove();
