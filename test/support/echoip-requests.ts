import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { publicAddresses, xorshift } from './public-addresses.ts';

/**
 * The requests whose answers scripts/record-echoip-fixtures.ts recorded from echoip (ifconfig.co's
 * program) and test/text/echoip-fixtures.test.ts asks netinfo: the same list on both sides.
 */
export const ECHOIP_FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'echoip', 'answers.json.gz');
/** MaxMind's ASN test database (vendored): the ASN side of both servers. */
export const ECHOIP_ASN_DB = path.resolve(import.meta.dirname, '..', 'fixtures', 'mmdb', 'GeoLite2-ASN-Test.mmdb');

export interface RecordedRequest {
  path: string;
  method?: 'GET' | 'HEAD';
  headers: Record<string, string>;
}

export interface RecordedAnswer {
  status: number;
  type: string;
  body: string;
}

export interface EchoipFixtures {
  recorded: {
    at: string;
    echoip: string;
    go: string;
    city: { file: string; sha256: string };
    asn: { file: string; sha256: string };
    ports: { open: number; closed: number };
  };
  requests: RecordedRequest[];
  answers: RecordedAnswer[];
}

export const readEchoipFixtures = (): EchoipFixtures =>
  JSON.parse(gunzipSync(readFileSync(ECHOIP_FIXTURES)).toString());

/** The one-value paths echoip serves, each asked about every address. */
export const ECHOIP_TEXT_PATHS = ['/ip', '/country', '/country-iso', '/city', '/coordinates', '/asn', '/asn-org'];

export const CURL = 'curl/8.5.0';
/** Clients as they introduce themselves, and odd ones (echoip's own parser tests, and HTML in a header). */
export const USER_AGENTS = [
  CURL,
  'Wget/1.21.3',
  'HTTPie/3.2.2',
  'xh/0.22.0',
  'Go-http-client/1.1',
  'fetch libfetch/2.0',
  'Mikrotik/6.x Fetch',
  'Go 1.1 package http',
  'curl/',
  'curl/foo',
  'Wget',
  'ddclient/3.10.0',
  'python-requests/2.31.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'odd <b>&"quoted"\\ agent',
];

/** Some IPv6 addresses inside the RIRs' allocations, from a fixed seed. */
function ipv6Addresses(count: number): string[] {
  const blocks = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];
  const next = xorshift(0x2545f491);
  const found: string[] = [];
  for (let i = 0; i < count; i++) {
    const block = blocks[i % blocks.length] as number;
    const second = block === 0x2001 ? 0x0200 + (next() % 0x0e00) : next() & 0x0fff;
    const groups = [block + (block === 0x2001 ? 0 : second >>> 8), block === 0x2001 ? second : second & 0xff];
    for (let g = 0; g < 6; g++) groups.push(next() & 0xffff);
    found.push(groups.map((part) => part.toString(16)).join(':'));
  }
  return found;
}

/** One address inside each network of the ASN test database (so /asn has values to compare). */
function asnTestAddresses(): string[] {
  const source = path.resolve(import.meta.dirname, '..', 'fixtures', 'echoip', 'asn-test-networks.txt');
  return readFileSync(source, 'utf8').split('\n').filter(Boolean);
}

/** Addresses that are not public: echoip looks them up and finds nothing; so must netinfo. */
const SPECIAL = ['10.1.2.3', '127.0.0.1', '192.0.2.7', '100.64.0.1', '::1', 'fe80::1', '2001:db8::7', 'fc00::1'];

export function echoipAddresses(): string[] {
  return [...new Set([...publicAddresses(1000), ...asnTestAddresses(), ...ipv6Addresses(120), ...SPECIAL])];
}

export function echoipRequests(ports: { openPort: number; closedPort: number }): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  for (const ip of echoipAddresses()) {
    const forwarded = { 'x-forwarded-for': ip };
    for (const path of ECHOIP_TEXT_PATHS) requests.push({ path, headers: { ...forwarded, 'user-agent': CURL } });
    requests.push({ path: '/json', headers: { ...forwarded, 'user-agent': CURL } });
    requests.push({ path: '/', headers: { ...forwarded, accept: 'application/json' } });
  }
  const one = { 'x-forwarded-for': '81.2.69.160' };
  for (const agent of ['', ...USER_AGENTS]) {
    const ua: Record<string, string> = agent === '' ? {} : { 'user-agent': agent };
    requests.push({ path: '/json', headers: { ...one, ...ua } });
    for (const ip of ['8.8.8.8', '::ffff:8.8.8.8', '2a02:2770::21a:4aff:fe8e:1b7a'])
      requests.push({ path: `/json?ip=${ip}`, headers: { ...one, ...ua } });
    for (const accept of [undefined, '*/*', 'text/plain', 'application/json'])
      requests.push({ path: '/', headers: { ...one, ...ua, ...(accept ? { accept } : {}) } });
  }
  for (const path of ECHOIP_TEXT_PATHS)
    requests.push({ path: `${path}?ip=2.125.160.216`, headers: { ...one, 'user-agent': CURL } });
  // Not an address: the same 400, but netinfo's error is its own (a text line on text paths).
  for (const path of ['/?ip=010.1.1.1', '/country?ip=example.com', '/json?ip=1.2.3', '/coordinates?ip=fe80::1%25eth0'])
    requests.push({ path, headers: { ...one, 'user-agent': CURL } });
  requests.push({ path: '/', method: 'HEAD', headers: { ...one, 'user-agent': CURL } });
  requests.push({ path: '/', method: 'HEAD', headers: one });
  for (const path of ['/port/abc', '/port/0', '/port/65536', '/port/-1', '/port/1x'])
    requests.push({ path, headers: { ...one, 'user-agent': CURL } });
  const local = { 'x-forwarded-for': '127.0.0.1', 'user-agent': CURL };
  requests.push({ path: `/port/${ports.openPort}`, headers: local });
  requests.push({ path: `/port/${ports.closedPort}`, headers: local });
  return requests;
}

/** One request over HTTP, headers exactly as listed (no User-Agent or Accept of the client's own). */
export function askEchoip(port: number, request: RecordedRequest, agent: http.Agent): Promise<RecordedAnswer> {
  return new Promise((resolve, reject) => {
    const call = http.request(
      { host: '127.0.0.1', port, path: request.path, method: request.method ?? 'GET', headers: request.headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers['content-type'] ?? '',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    call.on('error', reject);
    call.end();
  });
}

/** Every request, eight at a time. */
export async function askAll(port: number, requests: RecordedRequest[]): Promise<RecordedAnswer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const answers: RecordedAnswer[] = [];
    for (let start = 0; start < requests.length; start += 8)
      answers.push(...(await Promise.all(requests.slice(start, start + 8).map((r) => askEchoip(port, r, agent)))));
    return answers;
  } finally {
    agent.destroy();
  }
}
