import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { formatServer } from '../../src/dns/servers.ts';
import type { Endpoint } from '../../src/tls/connection.ts';
import { probeVersion } from '../../src/tls/protocols.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { type FakeStarttlsServer, startFakeStarttlsServer } from '../support/fake-starttls-server.ts';
import { closedPort } from '../support/fake-whois-server.ts';
import { createTestPki, type IssuedCertificate, opensslAvailable, type TestPki } from '../support/test-pki.ts';

/**
 * /api/v1/ssl?protocols=true: one handshake per TLS version against local servers that accept
 * every version (TLSv1 and TLSv1.1 need security level 0 on both sides), only TLSv1.2, only TLSv1.3;
 * and the version probe's null when nothing could be learnt.
 */

const skip = opensslAvailable() ? false : 'the openssl command is not installed';
const DAY = 86_400_000;
const HOST = 'versions.tls.test';

describe('GET /api/v1/ssl?protocols=true', { skip }, () => {
  let pki: TestPki;
  let certificate: IssuedCertificate;
  let dns: FakeDnsServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let starttls: FakeStarttlsServer;
  const servers: tls.Server[] = [];
  const ports: Record<string, number> = {};
  const connections: Record<string, number> = {};

  const serve = async (name: string, options: tls.TlsOptions) => {
    const server = tls.createServer({ key: certificate.keyPem, cert: certificate.chainPem, ...options }, (socket) =>
      socket.end(),
    );
    connections[name] = 0;
    server.on('connection', () => {
      connections[name] = (connections[name] ?? 0) + 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports[name] = (server.address() as net.AddressInfo).port;
  };

  before(async () => {
    pki = createTestPki();
    const now = Date.now();
    certificate = pki.issue('versions', {
      commonName: HOST,
      altNames: [HOST],
      key: 'rsa2048',
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 90 * DAY),
    });
    await serve('all', { minVersion: 'TLSv1', ciphers: 'ALL:@SECLEVEL=0' });
    await serve('tls12', { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
    await serve('tls13', { minVersion: 'TLSv1.3' });
    starttls = await startFakeStarttlsServer(
      'smtp',
      'upgrade',
      tls.createSecureContext({ key: certificate.keyPem, cert: certificate.chainPem }),
    );
    dns = await startFakeDnsServer(recordsHandler([{ type: 'A', name: HOST, ttl: 60, data: '127.0.0.1' }], 'tls.test'));
    app = await buildTestApp(
      { DNS_SERVERS: formatServer(dns.server), ALLOW_PRIVATE_TARGETS: 'true' },
      { trustedCertificates: [pki.rootPem] },
    );
  });
  after(async () => {
    await app?.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await starttls?.close();
    await dns?.close();
    pki?.remove();
  });

  const check = async (query: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/v1/ssl?host=${HOST}&${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('reports each version the server accepts, one connection per version beside the main one', async () => {
    const before = connections.all ?? 0;
    const all = await check(`port=${ports.all}&protocols=true`);
    assert.deepEqual(all.protocols, { TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': true, 'TLSv1.3': true });
    assert.equal((connections.all ?? 0) - before, 5);
    assert.equal(all.protocol, 'TLSv1.3', 'the main handshake keeps Node defaults');
    assert.equal(all.valid, true);
  });

  it('says false for the versions a server refuses', async () => {
    const only12 = await check(`port=${ports.tls12}&protocols=true`);
    assert.deepEqual(only12.protocols, { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': false });
    const only13 = await check(`port=${ports.tls13}&protocols=true`);
    assert.deepEqual(only13.protocols, { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': false, 'TLSv1.3': true });
  });

  it('runs the STARTTLS exchange before every version handshake', async () => {
    const body = await check(`port=${starttls.port}&starttls=smtp&protocols=true`);
    // Node's server defaults: TLSv1.2 and TLSv1.3.
    assert.deepEqual(body.protocols, { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true });
    assert.equal(starttls.commands.length, 5);
    for (const sent of starttls.commands) assert.deepEqual(sent, ['EHLO [127.0.0.1]', 'STARTTLS']);
  });

  it('leaves protocols out unless asked', async () => {
    for (const query of [`port=${ports.all}`, `port=${ports.all}&protocols=false`]) {
      const body = await check(query);
      assert.equal('protocols' in body, false, query);
    }
    const response = await app.inject({ method: 'GET', url: `/api/v1/ssl?host=${HOST}&protocols=yes` });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /protocols/);
  });

  it('answers 502 as a plain check does when the main handshake fails, the probes abandoned', async () => {
    const plain = net.createServer((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')),
    );
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const port = (plain.address() as net.AddressInfo).port;
      const response = await app.inject({ method: 'GET', url: `/api/v1/ssl?host=${HOST}&port=${port}&protocols=true` });
      assert.equal(response.statusCode, 502);
      assert.match(response.json().error, /does not speak TLS/);
    } finally {
      plain.close();
    }
  });

  it('probeVersion: null when the connection fails or the time runs out before the server could answer', async () => {
    const endpoint = (port: number): Endpoint => ({
      host: HOST,
      sni: HOST,
      address: '127.0.0.1',
      port,
      starttls: null,
    });
    assert.equal(await probeVersion(endpoint(await closedPort()), 'TLSv1.2', AbortSignal.timeout(1000), 1000), null);
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      assert.equal(await probeVersion(endpoint(port), 'TLSv1', AbortSignal.timeout(200), 200), null);
    } finally {
      silent.close();
    }
    assert.equal(await probeVersion(endpoint(ports.tls12 as number), 'TLSv1.2', AbortSignal.timeout(1000), 1000), true);
    assert.equal(
      await probeVersion(endpoint(ports.tls12 as number), 'TLSv1.1', AbortSignal.timeout(1000), 1000),
      false,
    );
  });
});
