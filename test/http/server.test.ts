import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp } from '../support/app.ts';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

function getJson(
  host: string,
  port: number,
  urlPath: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: urlPath }, (res) => {
      let data = '';
      res.on('data', (chunk) => {
        data += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the server process: dual-stack /api/v1/ipv6 over real sockets, then a clean SIGTERM exit', async () => {
  const child = spawn(process.execPath, ['src/start.js'], {
    cwd: repoRoot,
    env: { ...process.env, ...NO_DOWNLOADS_ENV, PORT: '0', HOST: '::', LOG_LEVEL: 'warn', DATA_DIR: '.tmp/test-data' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on http:\/\/localhost:(\d+) .*\n/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`server exited early:\n${output}`)));
  });

  const overIpv4 = await getJson('127.0.0.1', port, '/api/v1/ipv6');
  assert.equal(overIpv4.status, 200);
  assert.deepEqual(
    {
      ip: overIpv4.body.ip,
      is_ipv4: overIpv4.body.is_ipv4,
      is_ipv6: overIpv4.body.is_ipv6,
      protocol: overIpv4.body.protocol,
    },
    { ip: '127.0.0.1', is_ipv4: true, is_ipv6: false, protocol: 'IPv4' },
  );
  assert.match(String(overIpv4.body.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

  const overIpv6 = await getJson('::1', port, '/api/v1/ipv6');
  assert.equal(overIpv6.status, 200);
  assert.deepEqual(
    {
      ip: overIpv6.body.ip,
      is_ipv4: overIpv6.body.is_ipv4,
      is_ipv6: overIpv6.body.is_ipv6,
      protocol: overIpv6.body.protocol,
    },
    { ip: '::1', is_ipv4: false, is_ipv6: true, protocol: 'IPv6' },
  );

  // Issue 28: the start-up line named `/api/v1`, which is a 404; it names the pages a person opens.
  const startLine = output.split('\n').find((line) => line.includes('listening on')) ?? '';
  const base = `http://localhost:${port}`;
  for (const page of [`${base}/`, `${base}/docs`, `${base}/dashboard`]) {
    assert.ok(
      startLine.includes(`${page} `) || startLine.includes(`${page},`) || startLine.includes(`${page})`),
      `${page} in: ${startLine}`,
    );
    const opened = await fetch(page, { headers: { accept: 'text/html' } });
    assert.equal(opened.status, 200, `${page} is a page`);
    await opened.arrayBuffer();
  }
  assert.doesNotMatch(startLine, /\/api\/v1/);

  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, output);
});

test('a bad setting stops the process with a message naming the variable', async () => {
  const child = spawn(process.execPath, ['src/start.js'], {
    cwd: repoRoot,
    env: { ...process.env, ...NO_DOWNLOADS_ENV, PORT: 'eighty', RATE_LIMITS: 'public=1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  assert.equal(code, 1);
  assert.match(stderr, /PORT: must be a whole number/);
  assert.match(stderr, /RATE_LIMITS: "public=1"/);
});

test('closing finishes in-flight requests and ends long-lived ones through the shutdown signal', async () => {
  const app = await buildTestApp();
  let started!: () => void;
  const requestStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  app.get('/api/v1/long-lived', async () => {
    started();
    await new Promise<void>((resolve) => app.shutdownSignal.addEventListener('abort', () => resolve()));
    return { ended: 'by shutdown' };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const pending = getJson('127.0.0.1', port, '/api/v1/long-lived');
  await requestStarted;
  await app.close();
  const response = await pending;
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { ended: 'by shutdown' });
});
