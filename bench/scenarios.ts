// The benchmark scenarios, shared by `npm run bench` (req/s, latency, CPU) and
// `npm run bench:instructions` (instructions per request under callgrind).

import type { Client, Options, Request } from 'autocannon';
import { NO_DOWNLOADS_ENV } from '../test/support/no-downloads.ts';
import {
  batchScenarioSetup,
  jsonIpScenarioSetup,
  jsonRpkiScenarioSetup,
  jsonScenarioSetup,
  mcpIpScenarioSetup,
} from './json-scenario.ts';
import { keyedScenarioSetup } from './keyed-scenario.ts';
import type { ScenarioSetup } from './scenario-setup.ts';

export type { ScenarioSetup };

export interface Scenario {
  path: string;
  /** The share of the baseline's req/s the issue targets. */
  target: number;
  env?: Record<string, string>;
  /** Starts what the scenario needs (a DNS server, data) and says how to drive the service. */
  setup?: () => Promise<ScenarioSetup>;
  /** Further targets: p99 latency of netinfo, and its peak resident memory under load. */
  p99UnderMs?: number;
  rssUnderMb?: number;
  /** Targets against another scenario of the same run (judged when both ran). */
  relative?: {
    scenario: string;
    /** This scenario's req/s ratio at least this share of the other's. */
    ratioShare?: number;
    /** Items per request here (a batch's addresses), and how many times cheaper in server CPU an item is to be than one of the other's requests. */
    itemsPerRequest?: number;
    cpuPerItemTimes?: number;
    /** bench:instructions: main-thread instructions per request at most this many times the other's. */
    instructionsTimes?: number;
  };
  /** Server CPU time per request under this many µs (a batch's server time). */
  cpuUsUnder?: number;
  /** bench:instructions: bare node:http's main-thread instructions per request over netinfo's, at least this. */
  instructionRatio?: number;
}

/** Connections the load generator keeps open (`BENCH_CONNECTIONS`), in both benchmarks. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/** How every scenario runs the service (before the scenario's own settings). */
export const SERVICE_ENV: Readonly<Record<string, string>> = {
  // Nothing is downloaded from the internet (a scenario that needs data serves it locally).
  ...NO_DOWNLOADS_ENV,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  DATA_DIR: '.tmp/bench-data',
  // Limiting stays on (every request is counted) but never refuses during the run.
  RATE_LIMITS: 'public=1000000000/1000000000',
};

export const SCENARIOS: Record<string, Scenario> = {
  ipv6: { path: '/api/v1/ipv6', target: 0.7, instructionRatio: 0.85 },
  // The same path with an API key on every request: key verification and per-account counting.
  'ipv6-keyed': { path: '/api/v1/ipv6', target: 0.7, setup: keyedScenarioSetup },
  // 1,000 distinct public IPv4 clients through X-Forwarded-For, PTR answered by a local DNS server,
  // with all default data and the security feeds loaded.
  // Peak resident memory with every feed loaded: issue 35's 260 MB (bench:memory also judges the default data's 200).
  json: {
    path: '/api/v1/json',
    target: 0.6,
    setup: jsonScenarioSetup,
    p99UnderMs: 5,
    rssUnderMb: 260,
    instructionRatio: 0.8,
  },
  // json with 1 M generated VRPs installed (json runs with FEED_RPKI_URL=off): network.rpki in the
  // answers costs at most 3% more instructions per request (issue 33).
  'json-rpki': {
    path: '/api/v1/json',
    target: 0.6,
    setup: jsonRpkiScenarioSetup,
    relative: { scenario: 'json', instructionsTimes: 1.03 },
  },
  // The same 1,000 addresses and data, asked about by path: within 10% of json's ratio.
  'json-ip': {
    path: '/api/v1/json/{ip}',
    target: 0.5,
    setup: jsonIpScenarioSetup,
    relative: { scenario: 'json', ratioShare: 0.9 },
  },
  // The same addresses as MCP tool calls (issue 34): an agent's call (its POST, the SDK's server for
  // it, the route's own request in process) under 1.5 ms of server CPU; json-ip's beside it says what MCP adds.
  'mcp-ip': { path: '/mcp', target: 0, setup: mcpIpScenarioSetup, cpuUsUnder: 1500 },
  // Batches of 1,000 addresses never asked before, without hostname: under 25 ms of server CPU a
  // batch, and an item at most 1/20 of a json-ip request's server CPU (issue 35).
  batch: {
    path: '/api/v1/batch',
    target: 0,
    setup: batchScenarioSetup,
    cpuUsUnder: 25_000,
    relative: { scenario: 'json-ip', itemsPerRequest: 1000, cpuPerItemTimes: 20 },
  },
};

/** Waits for /readyz (data loaded); valgrind's slower starts need a longer `timeoutMs`. */
export async function waitUntilReady(url: string, timeoutMs = 12_000): Promise<void> {
  for (const deadline = performance.now() + timeoutMs; performance.now() < deadline; ) {
    if ((await fetch(`${url}/readyz`).catch(() => null))?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} never became ready`);
}

/**
 * netinfo's answer to the scenario's first request: the baseline answers a body as long, so the
 * comparison is of the work per request, not of how many bytes go over the socket; and its headers,
 * which `npm run bench:instructions` has a second baseline send (what node:http itself pays for them).
 */
export async function sampleAnswer(
  serviceUrl: string,
  scenario: Scenario,
  setup?: ScenarioSetup,
): Promise<{ bytes: number; headers: [string, string][] }> {
  const first = setup?.requests?.[0];
  const sample = first?.setupRequest?.(first) ?? first ?? { method: 'GET', path: scenario.path, headers: {} };
  const response = await fetch(`${serviceUrl}${sample.path}`, {
    method: sample.method,
    headers: sample.headers,
    ...(sample.body === undefined ? {} : { body: sample.body }),
  });
  return { bytes: (await response.arrayBuffer()).byteLength, headers: [...response.headers] };
}

export async function sampleAnswerBytes(serviceUrl: string, scenario: Scenario, setup?: ScenarioSetup) {
  return (await sampleAnswer(serviceUrl, scenario, setup)).bytes;
}

/**
 * autocannon options that spread the scenario's requests over the connections: connection i cycles
 * through requests i, i + connections, i + 2 × connections, ...
 *
 * Why not hand every connection the whole list: autocannon deep-copies and pre-builds the list once
 * per connection while it starts them one after the other, and each connection's first request is
 * already timed when it is started. With 50 × 1,000 requests that start blocked autocannon's event
 * loop for 0.5-0.7 s, so every round began with 50 answers that seemed to take 650 ms, followed by
 * half a second of the generator's own garbage collection: about a third of a 10 s round's answers
 * over 5 ms, for the bare server as much as for netinfo.
 */
export function loadOptions(setup: ScenarioSetup | undefined): Partial<Options> {
  const requests = setup?.requests;
  if (requests === undefined || requests.length === 0) return {};
  let started = 0;
  return {
    requests: requests.slice(0, 1) as Request[],
    setupClient(client: Client) {
      const index = started++ % CONNECTIONS;
      const own = requests.filter((_, k) => k % CONNECTIONS === index);
      client.setRequests((own.length > 0 ? own : [requests[index % requests.length]]) as Request[]);
    },
  };
}
