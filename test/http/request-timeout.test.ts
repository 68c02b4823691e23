import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { buildTestApp } from '../support/app.ts';
import { createFakeSpawner, type FakeChild } from '../support/fake-spawner.ts';
import { openStream } from '../support/sse-client.ts';

// Regression: Fastify's requestTimeout was 0, so a request whose body never came held its socket
// for ever (60 connections with a body 99 bytes short were held for 330 s).

const LIMIT_MS = 600;

async function listening(env: Record<string, string> = {}, spawner?: ReturnType<typeof createFakeSpawner>) {
  const app = await buildTestApp(
    { REQUEST_TIMEOUT_MS: String(LIMIT_MS), ALLOW_PRIVATE_TARGETS: 'true', ...env },
    spawner ? { spawner: spawner.spawner } : {},
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}

interface Ending {
  statusLine: string;
  afterMs: number;
}

/** A POST whose headers promise more body than is ever sent; `trickle` sends one byte every 100 ms. */
function incompleteBody(port: number, trickle = false): Promise<Ending> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        'POST /api/v1/account/signup HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
          'Content-Length: 10000\r\n\r\n{"email":',
      );
      if (!trickle) return;
      const timer = setInterval(() => socket.writable && socket.write(' '), 100);
      socket.on('close', () => clearInterval(timer));
    });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () =>
      resolve({ statusLine: received.split('\r\n')[0] ?? '', afterMs: performance.now() - started }),
    );
  });
}

test('a body that never completes is answered 408 and closed within the limit', async () => {
  const { app, port } = await listening();
  const ending = await incompleteBody(port);
  assert.equal(ending.statusLine, 'HTTP/1.1 408 Request Timeout');
  assert.ok(ending.afterMs >= LIMIT_MS * 0.9, `not before the limit (${ending.afterMs} ms)`);
  assert.ok(ending.afterMs < LIMIT_MS * 2, `within the limit and a check interval (${ending.afterMs} ms)`);
  await app.close();
});

test('a body trickled a byte at a time is answered 408 as well', async () => {
  const { app, port } = await listening();
  const ending = await incompleteBody(port, true);
  assert.equal(ending.statusLine, 'HTTP/1.1 408 Request Timeout');
  assert.ok(ending.afterMs < LIMIT_MS * 2, `${ending.afterMs} ms`);
  await app.close();
});

test('200 slow bodies do not stop a normal request from being answered', async () => {
  const { app, port } = await listening({ REQUEST_TIMEOUT_MS: '3000' });
  const slow = Array.from({ length: 200 }, () => incompleteBody(port));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/api/v1/ipv6', agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .on('error', reject);
  });
  assert.equal(status, 200);
  assert.ok(performance.now() - started < 1000, 'answered while the slow requests are held');
  const endings = await Promise.all(slow);
  assert.deepEqual(new Set(endings.map((ending) => ending.statusLine)), new Set(['HTTP/1.1 408 Request Timeout']));
  await app.close();
});

test('a stream (a long response) is not cut by the request limit', async () => {
  // A ping that prints a reply every 300 ms for three times the limit, then its summary.
  const fake = createFakeSpawner((child: FakeChild) => {
    child.stdout('PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n');
    let seq = 0;
    const timer = setInterval(() => {
      seq++;
      child.stdout(`64 bytes from 127.0.0.1: icmp_seq=${seq} ttl=64 time=0.040 ms\n`);
      if (seq * 300 < LIMIT_MS * 3) return;
      clearInterval(timer);
      child.stdout(
        `\n--- 127.0.0.1 ping statistics ---\n${seq} packets transmitted, ${seq} received, 0% packet loss, time 0ms\n`,
      );
      child.exit(0);
    }, 300);
  });
  const { app, port } = await listening({}, fake);
  const started = performance.now();
  const stream = await openStream(`http://127.0.0.1:${port}/api/v1/ping?host=127.0.0.1&count=7`);
  assert.equal(stream.status, 200);
  const events = await stream.done;
  assert.ok(performance.now() - started > LIMIT_MS * 2, 'the stream outlived the request limit');
  assert.equal(events.at(-1)?.event.type, 'done');
  await app.close();
});
