// The /api/v1/json benchmark scenario: 1,000 distinct public IPv4 clients sent through
// X-Forwarded-For (TRUST_PROXY=loopback), their PTR records answered by a DNS server on loopback,
// with the embedded City and ASN data and (when the shared snapshots are there) every security
// feed installed through the updater from a loopback HTTP server.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Answer } from 'dns-packet';
import { formatServer } from '../src/dns/servers.ts';
import { ipDataPaths, SOURCES, type SourceId } from '../src/ipinfo/data/data-files.ts';
import { embeddedAsnRanges, embeddedCityDatabase } from '../src/ipinfo/data/embedded-data.ts';
import { runDataUpdate } from '../src/ipinfo/updater/run-update.ts';
import { startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { startLocalHttpServer } from '../test/support/local-http-server.ts';
import { FEED_FILES, feedDir } from '../test/support/mmdb-fixtures.ts';
import { publicAddresses } from '../test/support/public-addresses.ts';
import { freshAddresses } from './fresh-addresses.ts';
import type { ScenarioSetup } from './scenario-setup.ts';
import { generateVrpJson } from './vrp-generator.ts';

const CLIENTS = 1000;
/**
 * `BENCH_ACCEPT_ENCODING=gzip` (or `br`): every request asks for a compressed answer, as browsers
 * and curl --compressed do (http/compression.ts decides by size). Unset: no Accept-Encoding.
 */
const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING;
const DATA_DIR = '.tmp/bench-data';

export async function installFeeds(): Promise<string> {
  if (!existsSync(feedDir)) return 'no feed snapshots (../shared/fixtures/feeds absent): City and ASN data only';
  const http = await startLocalHttpServer();
  try {
    for (const [id, file] of Object.entries(FEED_FILES))
      http.set(`/${id}`, { body: readFileSync(path.join(feedDir, file)) });
    const urls = Object.fromEntries(Object.keys(FEED_FILES).map((id) => [id, `${http.origin}/${id}`]));
    const reports = await runDataUpdate({
      dataDir: path.resolve(DATA_DIR),
      urls: { city: null, asn: null, ...urls } as Parameters<typeof runDataUpdate>[0]['urls'],
      skip: {},
      licenseKey: null,
    });
    const failed = reports.filter((report) => report.outcome === 'failed');
    if (failed.length > 0) throw new Error(`feed install failed: ${JSON.stringify(failed)}`);
    return 'embedded City + ASN data and all 7 security feeds loaded';
  } finally {
    await http.close();
  }
}

/** The generated 1 M VRP set (bench:rpki's), installed by the updater from a loopback server. */
async function installVrps(asnRows: Parameters<typeof generateVrpJson>[0]): Promise<string> {
  const generated = generateVrpJson(asnRows);
  const http = await startLocalHttpServer();
  try {
    http.set('/rpki', { body: generated.json });
    const urls = Object.fromEntries(SOURCES.map((source) => [source.id, null])) as Record<SourceId, string | null>;
    urls.rpki = `${http.origin}/rpki`;
    const reports = await runDataUpdate({ dataDir: path.resolve(DATA_DIR), urls, skip: {}, licenseKey: null });
    const report = reports.find((r) => r.id === 'rpki');
    if (report?.outcome === 'failed') throw new Error(`VRP install failed: ${report.detail}`);
    return `${generated.ipv4 + generated.ipv6} generated VRPs (bench/vrp-generator.ts)`;
  } finally {
    await http.close();
  }
}

/** FEED_RPKI_URL=off: the VRP set json-rpki installs in the same DATA_DIR is not loaded. */
export async function jsonScenarioSetup(): Promise<ScenarioSetup> {
  return ipScenarioSetup('json');
}

/** json with a VRP set of 1 M installed: `network.rpki` in every answer whose route the data knows. */
export async function jsonRpkiScenarioSetup(): Promise<ScenarioSetup> {
  return ipScenarioSetup('json', true);
}

/** The same addresses asked about by path (`/api/v1/json/{ip}`), no forwarding header. */
export async function jsonIpScenarioSetup(): Promise<ScenarioSetup> {
  return ipScenarioSetup('json-ip');
}

/** The same addresses asked about through MCP: a `tools/call` of `ip_info` POSTed to /mcp per request. */
export async function mcpIpScenarioSetup(): Promise<ScenarioSetup> {
  return ipScenarioSetup('mcp-ip');
}

/**
 * Batches of 1,000 addresses, without hostname, every address of the run asked once: no cache of
 * the service (its descriptions, the City reader's places) has seen any of them, as when a client
 * sends its own list (bench/fresh-addresses.ts spreads them over the IPv4 space).
 */
export async function batchScenarioSetup(): Promise<ScenarioSetup> {
  return ipScenarioSetup('batch');
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const toolCall = (ip: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ip_info', arguments: { ip } } });
const BATCH_SIZE = 1000;
const freshBatch = (next: () => string) => JSON.stringify(Array.from({ length: BATCH_SIZE }, next));

async function ipScenarioSetup(kind: 'json' | 'json-ip' | 'mcp-ip' | 'batch', rpki = false): Promise<ScenarioSetup> {
  // What `npm install` does for ./data: the service then starts as it does every later time.
  const embedded = ipDataPaths(path.resolve(DATA_DIR)).embedded;
  const [, asn] = await Promise.all([embeddedCityDatabase(embedded), embeddedAsnRanges(embedded)]);
  const data = `${await installFeeds()}${rpki ? `; ${await installVrps(asn.ranges.rows)}` : ''}`;
  const ips = publicAddresses(CLIENTS);
  const nextFresh = freshAddresses();
  const dns = await startFakeDnsServer((question) => {
    if (question.type !== 'PTR' || !question.name.endsWith('.in-addr.arpa')) return { rcode: 'NXDOMAIN' };
    const octets = question.name.split('.').slice(0, 4).reverse();
    const answer: Answer = {
      type: 'PTR',
      name: question.name,
      ttl: 3600,
      class: 'IN',
      data: `host-${octets.join('-')}.bench.test`,
    };
    return { answers: [answer] };
  });
  const requests: NonNullable<ScenarioSetup['requests']> =
    kind === 'json'
      ? ips.map((ip) => ({
          method: 'GET',
          path: '/api/v1/json',
          headers: { 'x-forwarded-for': ip, ...(ACCEPT_ENCODING ? { 'accept-encoding': ACCEPT_ENCODING } : {}) },
        }))
      : kind === 'json-ip'
        ? ips.map((ip) => ({ method: 'GET', path: `/api/v1/json/${ip}`, headers: {} }))
        : kind === 'mcp-ip'
          ? ips.map((ip) => ({ method: 'POST' as const, path: '/mcp', headers: MCP_HEADERS, body: toolCall(ip) }))
          : [
              {
                method: 'POST' as const,
                path: '/api/v1/batch',
                headers: { 'content-type': 'application/json' },
                // Built anew for every request: each batch asks about 1,000 addresses never asked before.
                setupRequest: (request) => ({ ...request, body: freshBatch(nextFresh) }),
              },
            ];
  const what = {
    json: `${CLIENTS} distinct public IPv4 clients via X-Forwarded-For`,
    'json-ip': `/api/v1/json/{ip} about ${CLIENTS} distinct public IPv4 addresses`,
    'mcp-ip': `MCP tools/call ip_info about ${CLIENTS} distinct public IPv4 addresses (stateless POSTs to /mcp)`,
    batch: `batches of ${BATCH_SIZE} public IPv4 addresses, each address new to the service, without hostname`,
  }[kind];
  return {
    env: {
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: formatServer(dns.server),
      DATA_DIR,
      // With a VRP set, no refresh of it runs during the measurement (the other side schedules none either).
      ...(rpki ? { RPKI_REFRESH_MINUTES: '0' } : { FEED_RPKI_URL: 'off' }),
    },
    requests,
    describe: `${what}, PTR from a loopback DNS server; ${data}${ACCEPT_ENCODING ? `; Accept-Encoding: ${ACCEPT_ENCODING}` : ''}`,
    async verify(url) {
      if (kind === 'batch') {
        // From a stretch of the sequence the load never reaches.
        const sample = JSON.parse(freshBatch(freshAddresses(2 ** 31))) as string[];
        const response = await fetch(`${url}/api/v1/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(sample),
        });
        const body = (await response.json()) as Record<string, { ip?: string; location?: unknown }>;
        const located = sample.filter((ip) => body[ip]?.location !== undefined).length;
        if (response.status !== 200 || Object.keys(body).length !== BATCH_SIZE || located < BATCH_SIZE * 0.9) {
          throw new Error(`unexpected batch answer: ${response.status}, ${located} of ${BATCH_SIZE} located`);
        }
        return;
      }
      if (kind === 'mcp-ip') {
        const response = await fetch(`${url}/mcp`, {
          method: 'POST',
          headers: MCP_HEADERS,
          body: toolCall(ips[0] as string),
        });
        const text = await response.text();
        if (response.status !== 200 || !text.includes(`"structuredContent":{"ip":"${ips[0]}"`)) {
          throw new Error(`unexpected MCP answer: ${response.status} ${text.slice(0, 300)}`);
        }
        return;
      }
      if (kind === 'json-ip') {
        const response = await fetch(`${url}/api/v1/json/${ips[0]}`);
        const body = (await response.json()) as { hostname?: string; ip?: string };
        if (response.status !== 200 || body.ip !== ips[0] || !body.hostname?.endsWith('.bench.test')) {
          throw new Error(`unexpected answer: ${response.status} ${JSON.stringify(body)}`);
        }
        return;
      }
      let validated = 0;
      for (const ip of ips.slice(0, 50)) {
        const response = await fetch(`${url}/api/v1/json`, { headers: { 'x-forwarded-for': ip } });
        const body = (await response.json()) as { hostname?: string; ip?: string; network?: { rpki?: unknown } };
        if (response.status !== 200 || body.ip !== ip || !body.hostname?.endsWith('.bench.test')) {
          throw new Error(`unexpected answer: ${response.status} ${JSON.stringify(body)}`);
        }
        if (body.network?.rpki !== undefined) validated++;
      }
      if (rpki !== validated > 0) throw new Error(`${validated} of 50 answers had network.rpki (VRP set: ${rpki})`);
    },
    close: async () => {
      // With the caches working, about one query per client (more only once TTLs run out).
      console.log(`  the local DNS server answered ${dns.queries.length} queries for ${ips.length} addresses`);
      await dns.close();
    },
  };
}
