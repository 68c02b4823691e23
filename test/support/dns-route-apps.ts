import type { Answer } from 'dns-packet';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp } from './app.ts';
import { recordsHandler, startFakeDnsServer } from './fake-dns-server.ts';

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

/**
 * The two apps the DNS routes' tests ask: `app` over a fake server answering `records`, and
 * `failingApp` over one that fails (names starting `slow` are never answered, `refused` get
 * REFUSED, the rest SERVFAIL; DNS_TIMEOUT_MS 100). `close` stops all four.
 */
export async function startDnsRouteApps(
  records: Answer[],
): Promise<{ app: TestApp; failingApp: TestApp; close(): Promise<void> }> {
  const dns = await startFakeDnsServer(recordsHandler(records));
  const failing = await startFakeDnsServer((question) =>
    question.name.startsWith('slow') ? 'drop' : { rcode: question.name.startsWith('refused') ? 'REFUSED' : 'SERVFAIL' },
  );
  const app = await buildTestApp({ DNS_SERVERS: formatServer(dns.server) });
  const failingApp = await buildTestApp({ DNS_SERVERS: formatServer(failing.server), DNS_TIMEOUT_MS: '100' });
  return {
    app,
    failingApp,
    async close() {
      await app.close();
      await failingApp.close();
      await dns.close();
      await failing.close();
    },
  };
}
