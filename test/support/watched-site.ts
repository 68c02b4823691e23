import { execFileSync } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The process holding the local end `port` of a TCP connection (ss names it). */
export function ownerOf(port: number): number | null {
  const line = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(line)?.[1];
  return pid === undefined ? null : Number(pid);
}

/** The site the monitors watch: each path counts its requests; `/hold` can keep a request waiting. */
export async function watchedSite() {
  const hits = new Map<string, number>();
  const held: { response: ServerResponse; port: number }[] = [];
  let holding = true;
  const server = createServer((request, response) => {
    const where = request.url ?? '/';
    hits.set(where, (hits.get(where) ?? 0) + 1);
    if (where === '/hold' && holding) {
      held.push({ response, port: request.socket.remotePort ?? 0 });
      return;
    }
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (where: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${where}`,
    hits: (where: string) => hits.get(where) ?? 0,
    held,
    release() {
      holding = false;
      for (const { response } of held.splice(0)) response.end('ok');
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
