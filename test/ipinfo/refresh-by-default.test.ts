import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { isLoopback, watchEgress } from '../support/egress-watch.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';
import { FEED_FILES, feedDir, feedSkip, mmdb } from '../support/mmdb-fixtures.ts';
import { startServiceProcess } from '../support/service-process.ts';

// A FireHOL-style netset (comments, bare addresses and networks); FireHOL's real list is never fetched.
const PROXY_LIST = '#\n# firehol_proxies (test copy)\n#\n81.2.69.142\n89.160.20.128/25\n';
const PROXY_LISTED = '81.2.69.142';
const DATACENTER = '1.12.0.1'; // in the datacenter IPv4 snapshot's 1.12.0.0/14
const UNLISTED = '216.160.83.56'; // a public address on no list

/** The source URLs set to `url(name)`: every one the service would otherwise fetch by default. */
function sourceUrls(url: (name: string) => string): Record<string, string> {
  const names = ['GEOIP_CITY', 'GEOIP_ASN', 'FEED_PROXY', ...Object.keys(FEED_FILES).map(feedVariable)];
  return Object.fromEntries(names.map((name) => [`${name}_URL`, url(name)]));
}
const feedVariable = (id: string) => `FEED_${id.toUpperCase().replace('-', '_')}`;

type Json = { security: Record<string, unknown>; type?: string };
async function json(base: string, ip: string): Promise<Json> {
  return (await (await fetch(`${base}/api/v1/json/${ip}`)).json()) as Json;
}

describe('IP data current by default (DATA_REFRESH_HOURS defaults to 24)', { skip: feedSkip, timeout: 60_000 }, () => {
  it('a fresh DATA_DIR with only the URLs set gets every source within seconds of start, with no connection beyond loopback', async () => {
    const server = await startLocalHttpServer();
    server.set('/GEOIP_CITY', { body: gzipSync(mmdb('GeoIP2-City-Test')) });
    server.set('/GEOIP_ASN', { body: gzipSync(mmdb('GeoLite2-ASN-Test')) });
    server.set('/FEED_PROXY', { body: PROXY_LIST });
    for (const [id, file] of Object.entries(FEED_FILES)) {
      server.set(`/${feedVariable(id)}`, { body: readFileSync(path.join(feedDir, file)) });
    }
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-default-'));
    // Nothing but DATA_DIR and the URLs: DATA_REFRESH_HOURS is left at its default.
    const service = await startServiceProcess({
      DATA_DIR: dataDir,
      ...sourceUrls((name) => `${server.origin}/${name}`),
    });
    const egress = watchEgress(service.child.pid as number);
    try {
      const started = Date.now();
      let answer = await json(service.url, UNLISTED);
      while (answer.security.proxy === undefined && Date.now() - started < 20_000) {
        await sleep(100);
        answer = await json(service.url, UNLISTED);
      }
      const tookMs = Date.now() - started;
      assert.deepEqual(
        { tor: answer.security.tor, vpn: answer.security.vpn, proxy: answer.security.proxy },
        { tor: false, vpn: false, proxy: false },
        `every indicator a boolean once the feeds arrived (${tookMs} ms): ${JSON.stringify(answer)}`,
      );
      assert.equal(answer.security.hosting, false);
      assert.ok(tookMs < 15_000, `the data arrived within seconds (${tookMs} ms)`);
      assert.ok((answer.security.sources as string[]).includes('proxy-list'));

      const proxied = await json(service.url, PROXY_LISTED);
      assert.equal(proxied.security.proxy, true, 'an address on the open-proxy list is a proxy');
      const datacenter = await json(service.url, DATACENTER);
      assert.equal(datacenter.security.hosting, true);
      assert.equal(datacenter.type, 'hosting', 'a datacenter address is type hosting');

      const ready = (await (await fetch(`${service.url}/readyz`)).json()) as {
        checks: Record<string, { detail: string }>;
      };
      const detail = ready.checks['ip-data']?.detail ?? '';
      for (const source of ['city built', 'asn built', ...Object.keys(FEED_FILES), 'proxy']) {
        assert.match(detail, new RegExp(`ages: .*\\b${source}\\b.* ago`), `/readyz gives ${source}'s age: ${detail}`);
      }
      assert.match(detail, /\btor downloaded \d+ min ago/);
      assert.deepEqual(
        server.requests.map((r) => r.path).filter((p) => p.startsWith('/GEOIP_CITY')),
        ['/GEOIP_CITY'],
        'the update ran once',
      );
    } finally {
      const peers = egress.stop();
      await service.stop();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      assert.deepEqual(
        peers.filter((peer) => !isLoopback(peer.address)),
        [],
        'the service and its update child connect to nothing beyond loopback',
      );
      // The watch sees the service's sockets at all: the downloads and this test's requests are among them.
      assert.ok(
        peers.some((peer) => peer.pid !== service.child.pid && peer.port === Number(new URL(server.origin).port)),
        `the update child's download connections were seen: ${JSON.stringify(peers)}`,
      );
    }
  });

  it('unreachable sources (a closed loopback port) leave it ready on the embedded data, one log line per attempt; a restart tries again at once', async () => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-offline-'));
    const service = await startServiceProcess({
      DATA_DIR: dataDir,
      ...sourceUrls((name) => `http://127.0.0.1:9/${name}`),
    });
    try {
      const deadline = Date.now() + 20_000;
      while (!/IP data refresh finished/.test(service.output()) && Date.now() < deadline) await sleep(100);
      await sleep(1_000); // time for a second line, were there one
      const lines = service
        .output()
        .split('\n')
        .filter((line) => /IP data refresh/.test(line));
      assert.equal(lines.length, 1, `one line for the one attempt: ${service.output()}`);
      assert.match(lines[0] as string, /"level":40/, 'a warning');
      assert.match(lines[0] as string, /the sources that failed keep the data in use/);
      assert.match(lines[0] as string, /FEED_PROXY|proxy: /);

      const ready = (await (await fetch(`${service.url}/readyz`)).json()) as {
        status: string;
        checks: Record<string, { detail: string }>;
      };
      assert.equal(ready.status, 'ready');
      assert.match(ready.checks['ip-data']?.detail ?? '', /city built \d+ (min|h|d) ago \(embedded\)/);
      const answer = await json(service.url, UNLISTED);
      assert.equal(answer.security.proxy, undefined, 'no feed, so no guess');
      assert.ok(answer.type === undefined || typeof answer.type === 'string');
      assert.equal((await fetch(`${service.url}/api/v1/json/${UNLISTED}`)).status, 200, 'answers on embedded data');
      await service.stop();

      // The failed run left a manifest dated now; a restart with nothing downloaded still tries at once.
      const server = await startLocalHttpServer();
      server.set('/FEED_PROXY', { body: PROXY_LIST });
      const restarted = await startServiceProcess({
        DATA_DIR: dataDir,
        ...sourceUrls((name) => `${server.origin}/${name}`),
      });
      try {
        const started = Date.now();
        let again = await json(restarted.url, UNLISTED);
        while (again.security.proxy === undefined && Date.now() - started < 15_000) {
          await sleep(100);
          again = await json(restarted.url, UNLISTED);
        }
        assert.equal(again.security.proxy, false, 'the open-proxy list arrived after the restart');
      } finally {
        await restarted.stop();
        await server.close();
      }
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the service as the test helpers start it', { timeout: 30_000 }, () => {
  it('opens no connection beyond loopback during startup and its first refresh', async () => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'no-egress-'));
    // Defaults except what the helper sets: DATA_REFRESH_HOURS at 24, a DATA_DIR with nothing downloaded.
    const service = await startServiceProcess({ DATA_DIR: dataDir });
    const egress = watchEgress(service.child.pid as number);
    try {
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        assert.equal((await fetch(`${service.url}/api/v1/json/${UNLISTED}`)).status, 200);
        await sleep(200);
      }
    } finally {
      const peers = egress.stop();
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
      assert.deepEqual(
        peers.filter((peer) => !isLoopback(peer.address)),
        [],
      );
      assert.ok(
        peers.some((peer) => peer.address.startsWith('127.')),
        `the watch saw the service's own sockets (this test's requests): ${JSON.stringify(peers)}`,
      );
    }
  });
});

describe('watchEgress, the check above', () => {
  it('reports a socket of a child process whose peer is beyond loopback (a connected UDP socket: connect sends nothing)', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('node:dgram').createSocket('udp4'); s.connect(53, '192.0.2.1', () => console.log('connected')); setTimeout(() => {}, 10000);",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // The watched root is this process, so the socket is found through the process tree, as the update child's is.
    const egress = watchEgress(process.pid);
    try {
      await once(child.stdout, 'data');
      await sleep(50);
    } finally {
      const peers = egress.stop();
      child.kill();
      assert.deepEqual(
        peers
          .filter((peer) => !isLoopback(peer.address))
          .map(({ pid, protocol, address, port }) => ({ pid, protocol, address, port })),
        [{ pid: child.pid, protocol: 'udp', address: '192.0.2.1', port: 53 }],
      );
    }
  });
});
