import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ipDataPaths } from '../../src/ipinfo/data/data-files.ts';
import { embeddedCityDatabase } from '../../src/ipinfo/data/embedded-data.ts';
import { buildTestApp } from '../support/app.ts';
import {
  askAll,
  ECHOIP_ASN_DB,
  type EchoipFixtures,
  echoipRequests,
  type RecordedAnswer,
  readEchoipFixtures,
} from '../support/echoip-requests.ts';
import { freePort } from '../support/free-port.ts';

/**
 * netinfo's text face against what echoip (ifconfig.co's program) answered for the same requests
 * and the same City and ASN databases (recorded by scripts/record-echoip-fixtures.ts): status,
 * Content-Type family and body bytes, request by request. echoip answers a few requests with its
 * HTML page where netinfo deliberately answers text (see rootAnswerKind in src/http/user-agent.ts);
 * those are counted and checked for what netinfo answers instead, never skipped silently.
 */
// The other tests' data directory: the embedded City database is decompressed there once.
const DATA_DIR = '.tmp/test-data';
const family = (type: string) => type.split(';')[0]?.trim() ?? '';

describe('the text face is a drop-in for ifconfig.co (echoip fixtures)', { timeout: 300_000 }, () => {
  let app: FastifyInstance;
  let fixtures: EchoipFixtures;
  let answers: RecordedAnswer[];
  const listener = createServer((socket) => socket.destroy());
  let ports = { openPort: 0, closedPort: 0 };

  before(async () => {
    fixtures = readEchoipFixtures();
    const cityDir = ipDataPaths(path.resolve(DATA_DIR)).embedded;
    const city = await embeddedCityDatabase(cityDir);
    const citySha = createHash('sha256')
      .update(readFileSync(path.join(cityDir, `GeoLite2-City-${city.version}.mmdb`)))
      .digest('hex');
    assert.equal(
      citySha,
      fixtures.recorded.city.sha256,
      `the embedded City database is not the one echoip answered from (${fixtures.recorded.city.file}): record the fixtures again (test/fixtures/echoip/README.md)`,
    );
    assert.equal(createHash('sha256').update(readFileSync(ECHOIP_ASN_DB)).digest('hex'), fixtures.recorded.asn.sha256);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    ports = { openPort: (listener.address() as { port: number }).port, closedPort: await freePort() };
    app = await buildTestApp({
      DATA_DIR,
      TRUST_PROXY: 'loopback',
      GEOIP_ASN_DB: ECHOIP_ASN_DB,
      // Thousands of requests from a few addresses; the limits have their own tests.
      RATE_LIMITS: 'public=1000000/1000000',
      // The port check connects to the caller, here 127.0.0.1.
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      HOSTNAME_TIMEOUT_MS: '50',
    });
    const requests = echoipRequests(ports);
    assert.equal(requests.length, fixtures.requests.length, 'the request list changed: record the fixtures again');
    await app.listen({ host: '127.0.0.1', port: 0 });
    answers = await askAll((app.server.address() as AddressInfo).port, requests);
  });
  after(async () => {
    await app?.close();
    listener.close();
  });

  /** The recorded answer, with the recorded listener ports replaced by this run's. */
  function expected(index: number): RecordedAnswer {
    const recorded = fixtures.answers[index] as RecordedAnswer;
    const { open, closed } = fixtures.recorded.ports;
    const body = recorded.body
      .replace(`"port": ${open},`, `"port": ${ports.openPort},`)
      .replace(`"port": ${closed},`, `"port": ${ports.closedPort},`);
    return { ...recorded, body };
  }

  function compare(select: (path: string, method: string) => boolean) {
    const counts = { same: 0, htmlByDesign: 0, ownError: 0 };
    const differences: string[] = [];
    fixtures.requests.forEach((request, index) => {
      if (!select(request.path, request.method ?? 'GET')) return;
      const want = expected(index);
      const got = answers[index] as RecordedAnswer;
      if (family(want.type) === 'text/html') {
        // echoip's page for a client that is neither a browser nor a known command-line tool.
        const accept = request.headers.accept ?? '';
        assert.ok(!accept.includes('text/html'));
        assert.equal(got.status, 200);
        assert.equal(family(got.type), accept.includes('application/json') ? 'application/json' : 'text/plain');
        counts.htmlByDesign++;
        return;
      }
      if (want.status === 400 && request.path.includes('?ip=')) {
        // A bad ?ip=: the same status; the message is netinfo's (a text line on the text paths).
        assert.equal(got.status, 400, request.path);
        const text = request.path.startsWith('/json') ? '' : 'text/plain';
        assert.equal(family(got.type), text || 'application/json', request.path);
        counts.ownError++;
        return;
      }
      if (got.status === want.status && family(got.type) === family(want.type) && got.body === want.body) counts.same++;
      else
        differences.push(
          `${request.method ?? 'GET'} ${request.path} ${JSON.stringify(request.headers)}\n  echoip: ${want.status} ${want.type} ${JSON.stringify(want.body)}\n  netinfo: ${got.status} ${got.type} ${JSON.stringify(got.body)}`,
        );
    });
    return { counts, differences };
  }

  for (const path of ['/ip', '/country', '/country-iso', '/city', '/coordinates', '/asn', '/asn-org']) {
    it(`${path}: the same bytes as echoip for every recorded address`, (t) => {
      const { counts, differences } = compare((asked) => asked.split('?')[0] === path);
      t.diagnostic(`${counts.same} answers byte for byte, ${counts.ownError} bad ?ip= answered 400 in netinfo's words`);
      assert.deepEqual(differences.slice(0, 5), [], `${differences.length} differences`);
      assert.ok(counts.same >= 1800, `${counts.same} compared`);
    });
  }

  it("/json and GET / with Accept: application/json: echoip's object, User-Agents parsed as echoip parses them", (t) => {
    const { counts, differences } = compare((asked) => asked.startsWith('/json'));
    t.diagnostic(`${counts.same} answers byte for byte, ${counts.ownError} bad ?ip= answered 400 in netinfo's words`);
    assert.deepEqual(differences.slice(0, 5), [], `${differences.length} differences`);
    assert.ok(counts.same >= 1900, `${counts.same} compared`);
  });

  it('GET / by User-Agent and Accept; HEAD / is 204', (t) => {
    const { counts, differences } = compare((asked) => asked.split('?')[0] === '/');
    t.diagnostic(
      `${counts.same} answers byte for byte, ${counts.htmlByDesign} text or JSON where echoip sends its page, ${counts.ownError} bad ?ip= answered 400 in netinfo's words`,
    );
    assert.deepEqual(differences.slice(0, 5), [], `${differences.length} differences`);
    // No User-Agent, python-requests and Mozilla without text/html in Accept: echoip sends its page.
    assert.ok(counts.htmlByDesign > 0 && counts.htmlByDesign < 30, `${counts.htmlByDesign} answered by design`);
    assert.ok(counts.same >= 1800, `${counts.same} compared`);
  });

  it('/port/{n}: the same bytes as echoip, for a bad port, an open port and a closed one', (t) => {
    const { counts, differences } = compare((asked) => asked.startsWith('/port/'));
    t.diagnostic(`${counts.same} answers byte for byte`);
    assert.deepEqual(differences, []);
    assert.equal(counts.same, 7);
  });
});
