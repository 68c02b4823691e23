import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from 'dns-packet';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from './fake-dns-server.ts';

/**
 * Fake WHOIS servers on loopback, each a real TCP listener on its own address (127.0.43.x) and all
 * on one random port, plus a fake DNS server that resolves their names (whois.iana.org, ...) to
 * those addresses. So a referral 'whois.verisign-grs.com' is resolved through the service's resolver
 * and connected to like the real one; only the port differs (tests pass it as the referral port).
 */

/** What a fake server does with one query. A string or bytes is the whole answer, then a clean close. */
export type FakeWhoisReply =
  | string
  | Uint8Array
  | {
      /** Sent one after another, `pauseMs` apart. */
      chunks?: (string | Uint8Array)[];
      pauseMs?: number;
      /** Wait before the first byte. */
      delayMs?: number;
      /** Never answer and never close (until the client gives up). */
      hang?: boolean;
      /** End with a TCP reset instead of a clean close. */
      reset?: boolean;
    };

export type FakeWhoisHandler = (query: string) => FakeWhoisReply | Promise<FakeWhoisReply>;

export interface FakeWhoisNetwork {
  readonly port: number;
  /** The fake DNS server that resolves every host name given (and `extraRecords`). */
  readonly dns: FakeDnsServer;
  /** `host:port` for WHOIS_SERVER. */
  server(host: string): string;
  addressOf(host: string): string;
  /** Queries received, in order, with the name of the host that received each. */
  readonly queries: { host: string; query: string }[];
  queriesTo(host: string): string[];
  close(): Promise<void>;
}

function asBytes(part: string | Uint8Array): Uint8Array {
  return typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
}

export async function startFakeWhoisNetwork(
  hosts: Record<string, FakeWhoisHandler>,
  options: { extraRecords?: Answer[] } = {},
): Promise<FakeWhoisNetwork> {
  const names = Object.keys(hosts);
  const addresses = new Map(names.map((name, index) => [name, `127.0.43.${index + 1}`]));
  const queries: { host: string; query: string }[] = [];
  const closing = new AbortController();
  const sockets = new Set<net.Socket>();

  function serve(host: string, handler: FakeWhoisHandler) {
    return net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      let buffered = '';
      let asked = false; // one query per connection, as RFC 3912 has it
      socket.on('data', async (chunk) => {
        if (asked) return;
        buffered += chunk.toString('latin1');
        const end = buffered.indexOf('\r\n');
        if (end === -1) return;
        asked = true;
        const query = buffered.slice(0, end);
        queries.push({ host, query });
        const reply = await handler(query);
        if (typeof reply === 'string' || reply instanceof Uint8Array) {
          socket.end(asBytes(reply));
          return;
        }
        const pause = (ms: number) => sleep(ms, true, { signal: closing.signal }).catch(() => false);
        if (reply.delayMs && !(await pause(reply.delayMs))) return;
        if (reply.hang) return;
        for (const part of reply.chunks ?? []) {
          if (socket.destroyed) return;
          socket.write(asBytes(part));
          if (reply.pauseMs && !(await pause(reply.pauseMs))) return;
        }
        if (reply.reset) socket.resetAndDestroy();
        else socket.end();
      });
    });
  }

  for (let attempt = 0; ; attempt++) {
    const servers: net.Server[] = [];
    try {
      let port = 0;
      for (const name of names) {
        const server = serve(name, hosts[name] as FakeWhoisHandler);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, addresses.get(name), () => resolve());
        });
        servers.push(server);
        port = (server.address() as net.AddressInfo).port;
      }
      const records: Answer[] = [
        ...names.map((name): Answer => ({ type: 'A', name, ttl: 300, data: addresses.get(name) as string })),
        ...(options.extraRecords ?? []),
      ];
      const dns = await startFakeDnsServer(recordsHandler(records, 'test'));
      return {
        port,
        dns,
        server: (host) => `${host}:${port}`,
        addressOf: (host) => addresses.get(host) as string,
        queries,
        queriesTo: (host) => queries.filter((entry) => entry.host === host).map((entry) => entry.query),
        async close() {
          closing.abort();
          for (const socket of sockets) socket.destroy();
          await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
          await dns.close();
        },
      };
    } catch (error) {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      // Another process holds the chosen port on one of the addresses: pick another.
      if (attempt >= 4 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

/** A port nothing listens on (bound, then released), for 'connection refused'. */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
