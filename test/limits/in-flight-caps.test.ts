import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DnsError } from '../../src/dns/errors.ts';
import type { QueryResult, Resolver } from '../../src/dns/resolver.ts';
import { deriveUpstreamCaps, readOpenFilesLimit } from '../../src/limits/descriptors.ts';
import { buildTestApp } from '../support/app.ts';

// Issue 28, item 9: 3,500 concurrent /ssl?protocols=true checks of a server that accepts and never
// speaks held 5 sockets each and took every descriptor, so /healthz failed too.

/** TCP servers on `count` ports that accept and never speak. */
async function startSilentServers(count: number) {
  const sockets = new Set<net.Socket>();
  const accept = (socket: net.Socket) => {
    sockets.add(socket);
    // Reads and drops what arrives (so a client's close is seen), and never answers.
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = net.createServer(accept);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  return {
    /** Ports nobody answers on; identical calls would share one check, so each call names its own. */
    ports: servers.map((server) => (server.address() as net.AddressInfo).port),
    /** The connections open now: a check holding its sockets shows here. */
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

/** DNS questions wait until released, as a server that does not answer; IP literals resolve to themselves. */
function silentResolver(): Resolver & { pending: number; release(): void } {
  const waiting: (() => void)[] = [];
  const resolver = {
    get pending() {
      return waiting.length;
    },
    release() {
      for (const wake of waiting.splice(0)) wake();
    },
    query: (name: string) =>
      new Promise<QueryResult>((_, reject) => {
        waiting.push(() => reject(new DnsError('TIMEOUT', `no answer for ${name}`)));
      }),
    async resolveAddresses(name: string) {
      const family = net.isIP(name);
      if (family === 4 || family === 6) return [{ address: name, family: family as 4 | 6 }];
      throw new DnsError('TIMEOUT', `no answer for ${name}`);
    },
    reverse: async () => null,
  };
  return resolver;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('in-flight caps of what holds upstream sockets (issue 28, item 9)', () => {
  let silent: Awaited<ReturnType<typeof startSilentServers>>;
  let resolver: ReturnType<typeof silentResolver>;
  let app: FastifyInstance;
  let base: string;
  const held: Promise<unknown>[] = [];

  before(async () => {
    silent = await startSilentServers(8);
    resolver = silentResolver();
    const env: Record<string, string> = {
      ALLOW_PRIVATE_TARGETS: 'true',
      WHOIS_SERVER: `127.0.0.1:${silent.ports[0]}`,
      RDAP_BOOTSTRAP_REFRESH_HOURS: '0',
      TLS_TIMEOUT_MS: '30000',
      HTTP_CHECK_TIMEOUT_MS: '30000',
      WHOIS_TIMEOUT_MS: '30000',
      RATE_LIMITS: 'public=1000/1000',
    };
    for (const prefix of ['TLS', 'HTTP_CHECK', 'MAIL', 'WHOIS']) {
      env[`${prefix}_MAX_IN_FLIGHT`] = '4';
      env[`${prefix}_MAX_IN_FLIGHT_PER_CLIENT`] = '2';
    }
    app = await buildTestApp(env, { resolver, openFilesLimit: null });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    // Let every held call end (the silent server closes, the questions fail), then close.
    await silent.close();
    resolver.release();
    await Promise.allSettled(held);
    await app.close();
  });

  // Each call is a different check (`n` from 0), since identical calls in flight share one.
  const capabilities: { what: string; url: (n: number) => string; sockets?: number; questions?: number }[] = [
    {
      what: '/ssl checks',
      url: (n) => `/api/v1/ssl?host=127.0.0.1&port=${silent.ports[n]}&protocols=true`,
      sockets: 5,
    },
    {
      what: '/http checks',
      url: (n) => `/api/v1/http?url=${encodeURIComponent(`http://127.0.0.1:${silent.ports[n]}/`)}`,
      sockets: 1,
    },
    { what: '/whois lookups', url: (n) => `/api/v1/whois?target=example${n}.com`, sockets: 1 },
    { what: '/mail checks', url: (n) => `/api/v1/mail?domain=example${n}.com`, questions: 5 },
  ];

  for (const capability of capabilities) {
    it(`caps ${capability.what} per client and in all, each with a 429 that names the cap`, async () => {
      let next = 0;
      const start = (client: string) => {
        const call = app.inject({ url: capability.url(next++), remoteAddress: client });
        held.push(call);
        return call;
      };
      const progress = () => (capability.questions ? resolver.pending : silent.sockets.size);
      const per = capability.questions ?? capability.sockets ?? 1;
      const holding = async (count: number) => {
        const before = progress();
        for (let index = 0; index < count; index++) start('198.51.100.1');
        await waitFor(() => progress() >= before + count * per, `${count} calls to hold their sockets`);
      };
      const refused = async (client: string) => {
        const response = await app.inject({ url: capability.url(next++), remoteAddress: client });
        assert.equal(response.statusCode, 429, response.body);
        assert.ok(Number(response.headers['retry-after']) >= 1);
        return response.json() as { error: string; limit: number; reset: number };
      };

      await holding(2);
      const mine = await refused('198.51.100.1');
      assert.equal(mine.limit, 2);
      assert.match(mine.error, new RegExp(`^Too many ${capability.what} at once: you already have 2 running`));
      assert.ok(mine.reset > Date.now() / 1000);

      // Another client still gets a slot while the first is at its cap, but only its fair share of
      // what is free (the streams' rule): with 2 of 4 free, one.
      let before = progress();
      start('198.51.100.2');
      await waitFor(() => progress() >= before + per, "the other client's call to hold its sockets");
      const share = await refused('198.51.100.2');
      assert.equal(share.limit, 1);
      assert.match(share.error, new RegExp(`^Too many ${capability.what} at once: the server is busy`));

      // A caller holding none still takes the last slot; then the cap in all is full.
      before = progress();
      start('198.51.100.3');
      await waitFor(() => progress() >= before + per, "a third client's call to hold its sockets");
      const all = await refused('198.51.100.4');
      assert.equal(all.limit, 4);
      assert.match(
        all.error,
        new RegExp(`^Too many ${capability.what} at once: the server is running its maximum of 4`),
      );
    });
  }

  it('answers /healthz and /api/v1/json within 50 ms while every cap is full', async () => {
    // Every cap is full now (the tests above leave their calls held).
    const ssl = capabilities[0]?.url(7) as string;
    assert.equal((await app.inject({ url: ssl, remoteAddress: '198.51.100.4' })).statusCode, 429);
    const connections = silent.sockets.size;
    assert.ok(connections >= 4 * 5 + 4 + 4, `the silent server holds ${connections} connections`);
    const timed = async (path: string) => {
      const started = performance.now();
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      assert.equal(response.status, 200, path);
      return performance.now() - started;
    };
    await timed('/healthz');
    await timed('/api/v1/json');
    for (const path of ['/healthz', '/api/v1/json']) {
      const samples: number[] = [];
      for (let index = 0; index < 5; index++) samples.push(await timed(path));
      samples.sort((a, b) => a - b);
      // The bound the issue asks for, on the median of five so one scheduling hiccup of this shared machine does not fail it.
      assert.ok((samples[2] as number) < 50, `${path} took ${samples.map((ms) => ms.toFixed(1)).join(', ')} ms`);
    }
  });
});

describe('the descriptor reserve', () => {
  const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

  it('reads the soft open-files limit of /proc/self/limits', () => {
    assert.equal(readOpenFilesLimit(PROC_LIMITS), 20000);
    assert.equal(
      readOpenFilesLimit(PROC_LIMITS.replace('20000                20000', 'unlimited            unlimited')),
      null,
    );
    assert.equal(readOpenFilesLimit(''), null);
  });

  const demands = {
    ssl: { maxInFlight: 200, maxPerClient: 5, socketsPerCall: 6 },
    http: { maxInFlight: 200, maxPerClient: 5, socketsPerCall: 2 },
    mail: { maxInFlight: 50, maxPerClient: 3, socketsPerCall: 100 },
    whois: { maxInFlight: 200, maxPerClient: 5, socketsPerCall: 2 },
  };
  const sockets = (caps: Record<keyof typeof demands, { maxInFlight: number }>) =>
    Object.entries(caps).reduce(
      (sum, [name, cap]) => sum + cap.maxInFlight * demands[name as keyof typeof demands].socketsPerCall,
      0,
    );

  it('keeps the caps as configured when their sockets fit the limit minus the reserve', () => {
    const derived = deriveUpstreamCaps(demands, 20_000, 1024);
    assert.equal(derived.reduced, false);
    assert.equal(derived.budget, 18_976);
    assert.equal(derived.caps.ssl.maxInFlight, 200);
    assert.ok(sockets(derived.caps) <= 18_976);
  });

  it('scales every cap down when they would not fit, so the reserve is never taken', () => {
    const derived = deriveUpstreamCaps(demands, 4096, 1024);
    assert.equal(derived.reduced, true);
    assert.equal(derived.budget, 3072);
    assert.ok(sockets(derived.caps) <= 3072, `${sockets(derived.caps)} sockets`);
    assert.ok(derived.caps.ssl.maxInFlight < 200 && derived.caps.ssl.maxInFlight > 0);
    for (const cap of Object.values(derived.caps)) assert.ok(cap.maxPerClient <= cap.maxInFlight);
  });

  it('keeps at most half a small limit in reserve, and leaves the caps alone where no limit is known', () => {
    assert.equal(deriveUpstreamCaps(demands, 1024, 1024).budget, 512);
    assert.deepEqual(deriveUpstreamCaps(demands, null, 1024), {
      caps: {
        ssl: { maxInFlight: 200, maxPerClient: 5 },
        http: { maxInFlight: 200, maxPerClient: 5 },
        mail: { maxInFlight: 50, maxPerClient: 3 },
        whois: { maxInFlight: 200, maxPerClient: 5 },
      },
      budget: null,
      reduced: false,
    });
  });
});
