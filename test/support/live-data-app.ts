import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { createIpDataStoreFromConfig } from '../../src/ipinfo/services.ts';
import { buildTestApp } from './app.ts';

const quiet = { info() {}, warn() {}, error() {} };

/**
 * The real app listening on loopback, with an IP data store that looks at DATA_DIR's manifest every
 * 20 ms (a running service looks every 5 s), so a test that installs data sees it swapped in at once.
 * The embedded data's caches are shared with the other tests, so none rebuilds them.
 */
export async function startLiveDataApp(
  env: Record<string, string>,
  deps: AppDeps = {},
): Promise<{ app: FastifyInstance; store: IpDataStore; base: string }> {
  const store = createIpDataStoreFromConfig(loadConfig({ ...env, DNS_SERVERS: '127.0.0.1:9' }), quiet, {
    watchIntervalMs: 20,
    embeddedCacheDir: path.resolve('.tmp/test-data/ipinfo/embedded'),
  });
  const app = await buildTestApp(env, { ...deps, ipData: store });
  app.addHook('onClose', async () => store.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, store, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}
