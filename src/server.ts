import { mkdir } from 'node:fs/promises';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

/** Process entry: load config, build the app, listen, and close gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const app = await buildApp(config);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A machine without IPv6 cannot bind `::`; serve IPv4 rather than not at all.
    if (config.host !== '::' || (error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
    app.log.warn('IPv6 is unavailable on this machine; listening on 0.0.0.0 (IPv4 only)');
    await app.listen({ port: config.port, host: '0.0.0.0' });
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '::' || config.host === '0.0.0.0' ? 'localhost' : config.host;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  console.log(`netinfo API v1 listening on ${url}/api/v1 (OpenAPI: ${url}/api/v1/openapi.json)`);

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: no new connections, finishing in-flight requests');
    const grace = setTimeout(() => {
      app.log.warn({ graceMs: config.shutdownGraceMs }, 'grace period over; exiting with requests still open');
      process.exit(0);
    }, config.shutdownGraceMs);
    grace.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));
}

await main();
