import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one path answers; a function decides per request. */
export type LocalReply = {
  status?: number;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Sends the headers and half the body, then destroys the connection. */
  cutShort?: boolean;
};

export interface LocalHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Replaces what a path (with its query string) answers; unknown paths are 404. */
  set(pathAndQuery: string, reply: LocalReply | ((request: IncomingMessage) => LocalReply)): void;
  readonly requests: { path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/**
 * A static HTTP server on loopback for tests of code that downloads: the publishers' real URLs
 * are never contacted. A reply with an `etag` header answers 304 to a matching If-None-Match.
 */
export async function startLocalHttpServer(): Promise<LocalHttpServer> {
  const routes = new Map<string, LocalReply | ((request: IncomingMessage) => LocalReply)>();
  const requests: LocalHttpServer['requests'] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push({ path, headers: request.headers });
    const route = routes.get(path);
    const reply = typeof route === 'function' ? route(request) : (route ?? { status: 404, body: 'not found' });
    const body = reply.body === undefined ? Buffer.alloc(0) : Buffer.from(reply.body);
    const etag = reply.headers?.etag;
    if (etag !== undefined && request.headers['if-none-match'] === etag) {
      response.writeHead(304, { etag });
      response.end();
      return;
    }
    response.writeHead(reply.status ?? 200, { 'content-length': String(body.length), ...reply.headers });
    if (reply.cutShort) {
      response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.destroy());
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set: (path, reply) => routes.set(path, reply),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
