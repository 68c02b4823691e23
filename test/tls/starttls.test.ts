import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { formatServer } from '../../src/dns/servers.ts';
import { STARTTLS_PROTOCOLS, type StarttlsProtocol } from '../../src/tls/starttls-replies.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import {
  type FakeStarttlsServer,
  type StarttlsBehaviour,
  startFakeStarttlsServer,
} from '../support/fake-starttls-server.ts';
import { closedPort } from '../support/fake-whois-server.ts';
import { createTestPki, opensslAvailable, type TestPki } from '../support/test-pki.ts';

/**
 * GET /api/v1/ssl?starttls=: the upgrade exchange of each protocol against local fakes that upgrade,
 * stay silent, stall at the upgrade, answer garbage or refuse; and the `port` parameter.
 */

const skip = opensslAvailable() ? false : 'the openssl command is not installed';
const DAY = 86_400_000;
const HOST = 'mail.tls.test';

describe('GET /api/v1/ssl with starttls and port', { skip }, () => {
  let pki: TestPki;
  let context: tls.SecureContext;
  let dns: FakeDnsServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const servers: FakeStarttlsServer[] = [];
  const env: Record<string, string> = {};

  const fake = async (protocol: StarttlsProtocol, behaviour: StarttlsBehaviour) => {
    const server = await startFakeStarttlsServer(protocol, behaviour, context);
    servers.push(server);
    return server;
  };

  before(async () => {
    pki = createTestPki();
    const now = Date.now();
    const certificate = pki.issue('mail', {
      commonName: HOST,
      altNames: [HOST],
      key: 'ec-p256',
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 90 * DAY),
    });
    context = tls.createSecureContext({ key: certificate.keyPem, cert: certificate.chainPem });
    dns = await startFakeDnsServer(recordsHandler([{ type: 'A', name: HOST, ttl: 60, data: '127.0.0.1' }], 'tls.test'));
    Object.assign(env, {
      DNS_SERVERS: formatServer(dns.server),
      // Nothing listens on the default port: every check here names its port.
      TLS_CHECK_PORT: String(await closedPort()),
      ALLOW_PRIVATE_TARGETS: 'true',
      TLS_TIMEOUT_MS: '600',
    });
    app = await buildTestApp(env, { trustedCertificates: [pki.rootPem] });
  });
  after(async () => {
    await app?.close();
    for (const server of servers) await server.close();
    await dns?.close();
    pki?.remove();
  });

  const check = async (query: string, target = app) => {
    const started = performance.now();
    const response = await target.inject({ method: 'GET', url: `/api/v1/ssl?${query}` });
    return { status: response.statusCode, body: response.json(), elapsed: performance.now() - started };
  };

  it('upgrades SMTP, IMAP, POP3 and FTP with their own commands, then reports the certificate', async () => {
    const expected: Record<StarttlsProtocol, string[]> = {
      smtp: ['EHLO [127.0.0.1]', 'STARTTLS'],
      imap: ['a1 STARTTLS'],
      pop3: ['STLS'],
      ftp: ['AUTH TLS'],
    };
    for (const protocol of STARTTLS_PROTOCOLS) {
      const server = await fake(protocol, 'upgrade');
      const { status, body } = await check(`host=${HOST}&port=${server.port}&starttls=${protocol}`);
      assert.equal(status, 200, `${protocol}: ${JSON.stringify(body)}`);
      assert.equal(body.starttls, protocol);
      assert.equal(body.port, server.port);
      assert.equal(body.valid, true, protocol);
      assert.equal(body.subject, HOST);
      assert.equal(body.chain_complete, true);
      assert.deepEqual(server.commands, [expected[protocol]], `${protocol}: the commands sent`);
    }
  });

  it('answers 502 naming the step when the server never answers, within TLS_TIMEOUT_MS', async () => {
    const silent = await fake('smtp', 'silent');
    const quiet = await check(`host=${HOST}&port=${silent.port}&starttls=smtp`);
    assert.equal(quiet.status, 502);
    assert.equal(
      quiet.body.error,
      `TLS check of ${HOST} failed: ${HOST} (127.0.0.1) port ${silent.port}: SMTP STARTTLS, greeting: no answer within 600 ms.`,
    );
    assert.ok(quiet.elapsed < 2000, `took ${quiet.elapsed} ms`);
    const stall = await fake('imap', 'stall');
    const stalled = await check(`host=${HOST}&port=${stall.port}&starttls=imap`);
    assert.equal(stalled.status, 502);
    assert.match(stalled.body.error, /IMAP STARTTLS, STARTTLS: no answer within 600 ms\.$/);
    assert.ok(stalled.elapsed < 2000, `took ${stalled.elapsed} ms`);
  });

  it('answers 502 naming the step when the server answers garbage, at once', async () => {
    for (const protocol of STARTTLS_PROTOCOLS) {
      const server = await fake(protocol, 'garbage');
      const { status, body, elapsed } = await check(`host=${HOST}&port=${server.port}&starttls=${protocol}`);
      assert.equal(status, 502, protocol);
      assert.match(
        body.error,
        /STARTTLS, greeting: the answer is not an? (SMTP reply|IMAP response|POP3 response|FTP reply) \("HTTP\/1\.1 400 Bad Request"\)\.$/,
        protocol,
      );
      assert.ok(elapsed < 500, `${protocol}: garbage is known before the time limit (${elapsed} ms)`);
    }
  });

  it('answers 502 quoting the refusal when the server refuses the upgrade', async () => {
    const refusals: Record<StarttlsProtocol, string> = {
      smtp: 'SMTP STARTTLS, STARTTLS: the server refused ("454 4.7.0 TLS not available due to local problem"; 220 was needed)',
      imap: 'IMAP STARTTLS, STARTTLS: the server refused ("a1 NO STARTTLS is disabled"; OK was needed)',
      pop3: 'POP3 STARTTLS, STLS: the server refused ("-ERR TLS not available"; +OK was needed)',
      ftp: 'FTP STARTTLS, AUTH TLS: the server refused ("534 Local policy on server does not allow TLS"; 234 was needed)',
    };
    for (const protocol of STARTTLS_PROTOCOLS) {
      const server = await fake(protocol, 'refuse');
      const { status, body } = await check(`host=${HOST}&port=${server.port}&starttls=${protocol}`);
      assert.equal(status, 502, protocol);
      assert.equal(
        body.error,
        `TLS check of ${HOST} failed: ${HOST} (127.0.0.1) port ${server.port}: ${refusals[protocol]}.`,
      );
    }
  });

  it('answers 502 when the server closes at the upgrade, or sends data after its go-ahead', async () => {
    const hangup = await fake('pop3', 'hangup');
    const closed = await check(`host=${HOST}&port=${hangup.port}&starttls=pop3`);
    assert.equal(closed.status, 502);
    assert.match(closed.body.error, /POP3 STARTTLS, STLS: the server closed the connection\.$/);
    const inject = await fake('smtp', 'inject');
    const injected = await check(`host=${HOST}&port=${inject.port}&starttls=smtp`);
    assert.equal(injected.status, 502);
    assert.match(
      injected.body.error,
      /SMTP STARTTLS: the server sent data after its go-ahead, before the TLS handshake \("250 injected"\)\.$/,
    );
  });

  it('takes any port 1-65535 and refuses the rest, and a port that contradicts host, with a 400', async () => {
    for (const port of ['0', '65536', '99999', 'abc', '443x', '-1', '1.5', '']) {
      const { status, body } = await check(`host=${HOST}&port=${encodeURIComponent(port)}`);
      assert.equal(status, 400, port);
      assert.match(body.error, /'port'/, port);
    }
    const { status, body } = await check(`host=${HOST}:465&port=587`);
    assert.equal(status, 400);
    assert.equal(body.error, "Invalid query parameter 'port': is 587 but 'host' names port 465; give one of them.");
    const server = await fake('smtp', 'upgrade');
    const same = await check(`host=${HOST}:${server.port}&port=${server.port}&starttls=smtp`);
    assert.equal(same.status, 200, 'the same port in both is fine');
    const bad = await check(`host=${HOST}&starttls=smtps`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /starttls/);
  });

  it('applies the target policy before any STARTTLS connection', async () => {
    const server = await fake('smtp', 'upgrade');
    const strict = await buildTestApp(
      { ...env, ALLOW_PRIVATE_TARGETS: 'false' },
      { trustedCertificates: [pki.rootPem] },
    );
    try {
      for (const host of [HOST, '127.0.0.2']) {
        const { status, body } = await check(`host=${host}&port=${server.port}&starttls=smtp`, strict);
        assert.equal(status, 400, host);
        assert.match(body.error, /is a loopback address/);
      }
      assert.deepEqual(server.commands, [], 'no connection was made');
    } finally {
      await strict.close();
    }
  });
});
