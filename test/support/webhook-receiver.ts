import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** A webhook receiver on loopback: keeps every request, answers what `reply` says (200 by default). */
export async function startWebhookReceiver(host = '127.0.0.1') {
  const received: ReceivedHook[] = [];
  let reply: (hook: ReceivedHook) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 });
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const hook = {
        path: request.url ?? '/',
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(hook);
      const answer = reply(hook);
      response.writeHead(answer.status, answer.headers ?? {});
      response.end('ok');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://${host}:${port}${path}`,
    port,
    received,
    answer(next: typeof reply) {
      reply = next;
    },
    /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`${received.length} of ${count} webhooks arrived in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200).unref();
        });
      }
      return received.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether `X-Netinfo-Signature` (`t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) signs `body` with `secret`, made in the last 30 s. */
export function signedBy(secret: string, header: string, body: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=')));
  const mac = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex');
  return parts.v1 === mac && Math.abs(Date.now() / 1000 - Number(parts.t)) < 30;
}
