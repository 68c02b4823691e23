import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** What a fake HTTP server answers to one request. */
export interface FakeHttpReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | object;
  /** Wait before answering (for timeouts). */
  delayMs?: number;
}

export interface FakeHttpServer {
  readonly port: number;
  /** Paths requested, in order. */
  readonly requests: { path: string; host: string | undefined; accept: string | undefined }[];
  close(): Promise<void>;
}

/**
 * An HTTP (or, given a key and certificate, HTTPS) server on 127.0.0.1 whose every answer comes
 * from the handler: the RDAP servers and the bootstrap registry of the WHOIS tests.
 */
export async function startFakeHttpServer(
  handler: (path: string) => FakeHttpReply,
  tlsOptions?: { key: string; cert: string },
): Promise<FakeHttpServer> {
  const requests: FakeHttpServer['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const listener: http.RequestListener = (request, response) => {
    const path = request.url ?? '/';
    requests.push({ path, host: request.headers.host, accept: request.headers.accept });
    const reply = handler(path);
    const send = () => {
      const body = typeof reply.body === 'object' ? JSON.stringify(reply.body) : (reply.body ?? '');
      response.writeHead(reply.status ?? 200, {
        'content-type': typeof reply.body === 'object' ? 'application/rdap+json' : 'text/plain',
        ...reply.headers,
      });
      response.end(body);
    };
    if (!reply.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, reply.delayMs);
    timers.add(timer);
  };
  const server = tlsOptions ? https.createServer(tlsOptions, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
