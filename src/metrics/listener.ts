import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { escapeControlCharacters } from '../http/control-characters.ts';
import type { MetricsConfig } from './config.ts';

export type Scrape = () => Promise<{ contentType: string; body: string }>;

/**
 * Apart from the public server, so a scrape is never rate-limited, never logged as a request and
 * never counted in netinfo_http_requests_total.
 */
export async function startMetricsListener(config: MetricsConfig, scrape: Scrape): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        // Not behind the app's text/plain escaping (http/control-characters.ts): escaped here.
        response.end(request.method === 'HEAD' ? undefined : escapeControlCharacters(body));
      },
      (error: Error) => {
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(escapeControlCharacters(`metrics unavailable: ${error.message}\n`));
      },
    );
  });
  server.listen(config.metricsPort, config.metricsHost);
  try {
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => {
        throw error;
      }),
    ]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE' ? 'is already in use' : `cannot be listened on (${code ?? (error as Error).message})`;
    throw new Error(
      `METRICS_PORT: ${config.metricsHost}:${config.metricsPort} ${reason}; give each instance its own METRICS_PORT, or 0 to turn metrics off`,
    );
  }
  return server;
}

export async function closeMetricsListener(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
