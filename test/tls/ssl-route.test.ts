import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import type { Answer } from 'dns-packet';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { closedPort } from '../support/fake-whois-server.ts';
import { createTestPki, type IssuedCertificate, opensslAvailable, type TestPki } from '../support/test-pki.ts';
import { readWithOpenssl } from './openssl-facts.ts';

/**
 * GET /api/v1/ssl against a real TLS server on 127.0.0.1 that serves, by SNI, certificates this
 * test makes with its own CA; every reported field is compared with what `openssl x509` prints for
 * the same certificate.
 */

const skip = opensslAvailable() ? false : 'the openssl command is not installed';
const DAY = 86_400_000;

type Case = { host: string; certificate: IssuedCertificate };

describe('GET /api/v1/ssl', { skip }, () => {
  let pki: TestPki;
  let server: tls.Server;
  let silent: net.Server;
  let plain: net.Server;
  let dns: FakeDnsServer;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const cases = new Map<string, Case>();
  /** TCP connections the TLS server accepted. */
  let connections = 0;
  /** The SNI of each handshake the TLS server completed (false: none was sent). */
  const servernames: (string | false)[] = [];
  const env: Record<string, string> = {};

  before(async () => {
    pki = createTestPki();
    const now = Date.now();
    // Validity ends half a day off a whole day, so days_remaining cannot change while the test runs.
    const valid = { notBefore: new Date(now - DAY), notAfter: new Date(now + 90 * DAY + DAY / 2) };
    const add = (host: string, certificate: IssuedCertificate) => cases.set(host, { host, certificate });
    add(
      'valid.tls.test',
      pki.issue('valid', {
        commonName: 'valid.tls.test',
        altNames: ['valid.tls.test', 'www.valid.tls.test', '127.0.0.1'],
        key: 'rsa2048',
        ...valid,
      }),
    );
    add(
      'ecdsa.tls.test',
      pki.issue('ecdsa', { commonName: 'ecdsa.tls.test', altNames: ['ecdsa.tls.test'], key: 'ec-p256', ...valid }),
    );
    add(
      'wild.tls.test',
      pki.issue('wild', {
        commonName: '*.wild.tls.test',
        altNames: ['*.wild.tls.test', 'wild.tls.test'],
        key: 'ec-p256',
        ...valid,
      }),
    );
    add(
      'expired.tls.test',
      pki.issue('expired', {
        commonName: 'expired.tls.test',
        altNames: ['expired.tls.test'],
        key: 'rsa2048',
        notBefore: new Date(now - 90 * DAY),
        notAfter: new Date(now - DAY - DAY / 2),
      }),
    );
    add(
      'future.tls.test',
      pki.issue('future', {
        commonName: 'future.tls.test',
        altNames: ['future.tls.test'],
        key: 'rsa2048',
        notBefore: new Date(now + 30 * DAY),
        notAfter: new Date(now + 120 * DAY + DAY / 2),
      }),
    );
    add(
      'wrongname.tls.test',
      pki.issue('wrongname', { commonName: 'other.tls.test', altNames: ['other.tls.test'], key: 'rsa2048', ...valid }),
    );
    add(
      'selfsigned.tls.test',
      pki.selfSigned('selfsigned', {
        commonName: 'selfsigned.tls.test',
        altNames: ['selfsigned.tls.test'],
        key: 'rsa2048',
        ...valid,
      }),
    );
    add(
      'selfexpired.tls.test',
      pki.selfSigned('selfexpired', {
        commonName: 'selfexpired.tls.test',
        altNames: ['other.tls.test'],
        key: 'ec-p256',
        notBefore: new Date(now - 90 * DAY),
        notAfter: new Date(now - DAY / 2),
      }),
    );
    add(
      'rogue.tls.test',
      pki.issueUntrusted('rogue', {
        commonName: 'rogue.tls.test',
        altNames: ['rogue.tls.test'],
        key: 'rsa2048',
        ...valid,
      }),
    );

    const contexts = new Map(
      [...cases.values()].map(({ host, certificate }) => [
        host,
        tls.createSecureContext({ key: certificate.keyPem, cert: certificate.chainPem }),
      ]),
    );
    const fallback = cases.get('valid.tls.test')?.certificate as IssuedCertificate;
    server = tls.createServer({
      key: fallback.keyPem,
      cert: fallback.chainPem,
      SNICallback: (name, callback) =>
        callback(
          null,
          contexts.get(name.endsWith('.wild.tls.test') ? 'wild.tls.test' : name) ?? contexts.get('valid.tls.test'),
        ),
    });
    server.on('connection', () => {
      connections++;
    });
    server.on('secureConnection', (socket: tls.TLSSocket & { servername?: string | false }) => {
      servernames.push(socket.servername ?? false);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Accepts connections, reads and says nothing: the handshake never completes. (Reading lets it
    // see the client's close; an unread socket would hold the server open after the test.)
    silent = net.createServer((socket) => {
      socket.resume();
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // Speaks plain HTTP on the TLS port.
    plain = net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));

    const records: Answer[] = [...cases.keys(), 'a.wild.tls.test'].map((name) => ({
      type: 'A',
      name,
      ttl: 60,
      data: '127.0.0.1',
    }));
    const known = recordsHandler(records, 'tls.test');
    // A name whose resolver fails, beside names that do not exist (NXDOMAIN): issue 18's two cases.
    dns = await startFakeDnsServer((question, context) =>
      question.name.startsWith('servfail.') ? { rcode: 'SERVFAIL' } : known(question, context),
    );
    Object.assign(env, {
      DNS_SERVERS: formatServer(dns.server),
      TLS_CHECK_PORT: String((server.address() as net.AddressInfo).port),
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    app = await buildTestApp(env, { trustedCertificates: [pki.rootPem] });
  });
  after(async () => {
    await app?.close();
    await new Promise((resolve) => server?.close(resolve));
    await new Promise((resolve) => silent?.close(resolve));
    await new Promise((resolve) => plain?.close(resolve));
    await dns?.close();
    pki?.remove();
  });

  const check = async (host: string, target = app) => {
    const response = await target.inject({ method: 'GET', url: `/api/v1/ssl?host=${encodeURIComponent(host)}` });
    return { status: response.statusCode, body: response.json() };
  };

  /** The fields of the spec, compared with openssl's reading of the certificate served. */
  const assertMatchesOpenssl = (body: Record<string, unknown>, certificate: IssuedCertificate) => {
    const expected = readWithOpenssl(certificate.certPath);
    for (const field of [
      'subject',
      'issuer',
      'issuer_org',
      'serial',
      'fingerprint',
      'valid_from',
      'valid_to',
      'alt_names',
      'bits',
      'signature_algorithm',
    ] as const) {
      assert.deepEqual(body[field], expected[field], field);
    }
    assert.equal(body.days_remaining, Math.floor((Date.parse(expected.valid_to) - Date.now()) / DAY));
  };

  it('reports a valid RSA 2048 certificate and its chain as served', async () => {
    const { status, body } = await check('valid.tls.test');
    assert.equal(status, 200);
    assert.equal(body.host, 'valid.tls.test');
    assert.equal(body.address, '127.0.0.1');
    assert.equal(body.valid, true);
    assert.equal(body.validation_error, null);
    assert.deepEqual(body.validation_errors, []);
    assert.equal(body.protocol, 'TLSv1.3');
    assert.equal(body.key_type, 'RSA');
    assert.equal(body.key_curve, null);
    assert.equal(body.days_remaining, 90);
    assertMatchesOpenssl(body, cases.get('valid.tls.test')?.certificate as IssuedCertificate);
    assert.deepEqual(body.alt_names, ['valid.tls.test', 'www.valid.tls.test', '127.0.0.1']);
    assert.deepEqual(
      body.chain.map((entry: { subject: string; issuer: string }) => [entry.subject, entry.issuer]),
      [
        ['valid.tls.test', 'netinfo Test Issuing CA'],
        ['netinfo Test Issuing CA', 'netinfo Test Root CA'],
      ],
      'the root the server did not send is not added',
    );
    assert.equal(body.chain[0].fingerprint, body.fingerprint);
    assert.equal(body.chain_complete, true);
    assert.equal(body.hostname_match, true);
    assert.deepEqual(body.problems, []);
  });

  it('shares one handshake among checks of a host made at the same moment, and keeps nothing after', async () => {
    const before = connections;
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => check('ecdsa.tls.test')));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(answers[0]?.status, 200);
    assert.equal(connections - before, 1, 'five checks at once: one connection');
    await check('ecdsa.tls.test');
    assert.equal(connections - before, 2, 'a later check connects again');
  });

  it('reports an ECDSA P-256 certificate', async () => {
    const { body } = await check('ecdsa.tls.test');
    assert.equal(body.valid, true);
    assert.equal(body.key_type, 'EC');
    assert.equal(body.key_curve, 'P-256');
    assert.equal(body.bits, 256);
    assertMatchesOpenssl(body, cases.get('ecdsa.tls.test')?.certificate as IssuedCertificate);
  });

  it('matches a wildcard name one label deep', async () => {
    assert.equal((await check('a.wild.tls.test')).body.valid, true);
  });

  it('reports an expired certificate, with negative days remaining', async () => {
    const { status, body } = await check('expired.tls.test');
    assert.equal(status, 200);
    assert.equal(body.valid, false);
    assert.equal(body.validation_error, 'expired');
    assert.equal(body.days_remaining, -2);
    assert.match(body.validation_errors[0].message, /^the certificate expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assertMatchesOpenssl(body, cases.get('expired.tls.test')?.certificate as IssuedCertificate);
  });

  it('reports a certificate that is not valid yet', async () => {
    const { body } = await check('future.tls.test');
    assert.equal(body.valid, false);
    assert.equal(body.validation_error, 'not_yet_valid');
    assert.deepEqual(
      body.validation_errors.map((problem: { code: string }) => problem.code),
      ['not_yet_valid'],
    );
    assertMatchesOpenssl(body, cases.get('future.tls.test')?.certificate as IssuedCertificate);
  });

  it('reports a trusted certificate for another name', async () => {
    const { body } = await check('wrongname.tls.test');
    assert.equal(body.valid, false);
    assert.deepEqual(body.validation_errors, [
      {
        code: 'name_mismatch',
        message: 'the certificate is not valid for wrongname.tls.test: it names other.tls.test',
      },
    ]);
    assert.equal(body.subject, 'other.tls.test');
  });

  it('issue 28: /http judges each certificate in the same words as /ssl (self_signed, not CERT_HAS_EXPIRED)', async () => {
    // An HTTPS server choosing the same certificates by SNI as the TLS server above.
    const contexts = new Map(
      [...cases.values()].map(({ host, certificate }) => [
        host,
        tls.createSecureContext({ key: certificate.keyPem, cert: certificate.chainPem }),
      ]),
    );
    const fallback = cases.get('valid.tls.test')?.certificate as IssuedCertificate;
    const web = https.createServer(
      {
        key: fallback.keyPem,
        cert: fallback.chainPem,
        SNICallback: (name, callback) => callback(null, contexts.get(name)),
      },
      (_request, response) => response.end('ok'),
    );
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const port = (web.address() as net.AddressInfo).port;
    try {
      const verdicts = new Map<string, string[]>();
      for (const host of cases.keys()) {
        const ssl = await check(host);
        const http = await app.inject({ url: `/api/v1/http?url=${encodeURIComponent(`https://${host}:${port}/`)}` });
        assert.equal(http.statusCode, 200, host);
        const { tls: facts } = http.json();
        const codes = (body: { validation_errors: { code: string }[] }) =>
          body.validation_errors.map((problem) => problem.code);
        assert.equal(facts.valid, ssl.body.valid, host);
        assert.equal(facts.validation_error, ssl.body.validation_error, host);
        assert.deepEqual(codes(facts), codes(ssl.body), host);
        assert.deepEqual(facts.validation_errors, ssl.body.validation_errors, host);
        verdicts.set(host, codes(facts));
      }
      // What the two routes agreed on, spelled out: Node's codes appear nowhere.
      assert.deepEqual(Object.fromEntries(verdicts), {
        'valid.tls.test': [],
        'ecdsa.tls.test': [],
        'wild.tls.test': [],
        'expired.tls.test': ['expired'],
        'future.tls.test': ['not_yet_valid'],
        'wrongname.tls.test': ['name_mismatch'],
        'selfsigned.tls.test': ['self_signed'],
        'selfexpired.tls.test': ['self_signed', 'expired', 'name_mismatch'],
        'rogue.tls.test': ['unknown_issuer'],
      });
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it('reports a self-signed certificate, and every other reason it has', async () => {
    const { body } = await check('selfsigned.tls.test');
    assert.equal(body.valid, false);
    assert.equal(body.validation_error, 'self_signed');
    assert.equal(body.issuer, 'selfsigned.tls.test');
    assertMatchesOpenssl(body, cases.get('selfsigned.tls.test')?.certificate as IssuedCertificate);
    const worse = await check('selfexpired.tls.test');
    assert.deepEqual(
      worse.body.validation_errors.map((problem: { code: string }) => problem.code),
      ['self_signed', 'expired', 'name_mismatch'],
    );
    assert.equal(worse.body.days_remaining, -1);
  });

  it('reports a certificate from an issuer outside the trust store', async () => {
    const { body } = await check('rogue.tls.test');
    assert.equal(body.valid, false);
    assert.equal(body.validation_error, 'unknown_issuer');
    assert.equal(body.issuer, 'Untrusted Test CA');
    assert.equal(body.issuer_org, 'Nobody Trusts Us');
    assert.match(body.validation_errors[0].message, /"Untrusted Test CA" is not in the trust store/);
  });

  it("does not trust the test CA without the injected trust store (Node's bundled roots)", async () => {
    const defaultTrust = await buildTestApp(env);
    try {
      const { body } = await check('valid.tls.test', defaultTrust);
      assert.equal(body.valid, false);
      assert.equal(body.validation_error, 'unknown_issuer');
    } finally {
      await defaultTrust.close();
    }
  });

  it('answers 400 for a loopback host unless ALLOW_PRIVATE_TARGETS is set', async () => {
    const strict = await buildTestApp(
      { ...env, ALLOW_PRIVATE_TARGETS: 'false' },
      { trustedCertificates: [pki.rootPem] },
    );
    try {
      const { status, body } = await check('valid.tls.test', strict);
      assert.equal(status, 400);
      assert.equal(
        body.error,
        "Invalid query parameter 'host': valid.tls.test resolves to 127.0.0.1 is a loopback address (Loopback, 127.0.0.0/8); the service does not connect to private, loopback, link-local, multicast, reserved or metadata addresses.",
      );
    } finally {
      await strict.close();
    }
  });

  it('checks an IP address without SNI, and says so with sni: null', async () => {
    const before = servernames.length;
    const { status, body } = await check('127.0.0.1');
    assert.equal(status, 200);
    assert.deepEqual([body.host, body.sni, body.address], ['127.0.0.1', null, '127.0.0.1']);
    // The server may record its side of the handshake after the client has its answer.
    const seen = async (count: number) => {
      for (let waited = 0; servernames.length < count && waited < 2000; waited += 10) await sleep(10);
    };
    await seen(before + 1);
    assert.deepEqual(servernames.slice(before), [false], 'the server saw no SNI');
    // The server's default certificate names 127.0.0.1 among its IP address SANs.
    assert.equal(body.valid, true);
    const named = await check('valid.tls.test');
    assert.equal(named.body.sni, 'valid.tls.test');
    await seen(before + 2);
    assert.deepEqual(servernames.slice(before + 1), ['valid.tls.test']);
  });

  it('takes the port from host:port or a pasted URL, over TLS_CHECK_PORT', async () => {
    const port = (server.address() as net.AddressInfo).port;
    // TLS_CHECK_PORT points at a closed port: only the port given in `host` can reach the server.
    const elsewhere = await buildTestApp(
      { ...env, TLS_CHECK_PORT: String(await closedPort()) },
      { trustedCertificates: [pki.rootPem] },
    );
    try {
      for (const host of [
        `valid.tls.test:${port}`,
        `https://Valid.TLS.test:${port}/some/path?x=1#top`,
        `127.0.0.1:${port}`,
        `https://127.0.0.1:${port}/`,
      ]) {
        const { status, body } = await check(host, elsewhere);
        assert.equal(status, 200, host);
        assert.equal(body.port, port, host);
        assert.equal(body.valid, true, host);
      }
      const { body } = await check(`https://valid.tls.test:${port}/`, elsewhere);
      assert.deepEqual([body.host, body.sni], ['valid.tls.test', 'valid.tls.test']);
    } finally {
      await elsewhere.close();
    }
  });

  it('applies the target policy to addresses however they are written', async () => {
    const strict = await buildTestApp(
      { ...env, ALLOW_PRIVATE_TARGETS: 'false' },
      { trustedCertificates: [pki.rootPem] },
    );
    try {
      for (const host of ['127.0.0.2', '127.0.0.2:443', 'https://127.0.0.2:8443/', '[::1]:443', '::ffff:127.0.0.2']) {
        const { status, body } = await check(host, strict);
        assert.equal(status, 400, host);
        assert.match(body.error, /is a loopback address/, host);
      }
    } finally {
      await strict.close();
    }
  });

  it('with ALLOW_PRIVATE_TARGETS as a CIDR list, reaches the listed loopback address and no other (issue 23)', async () => {
    const listed = await buildTestApp(
      { ...env, ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' },
      { trustedCertificates: [pki.rootPem] },
    );
    try {
      const allowed = await check('valid.tls.test', listed);
      assert.equal(allowed.status, 200);
      assert.equal(allowed.body.address, '127.0.0.1');
      for (const host of ['127.0.0.2', '[::1]:443', '169.254.169.254']) {
        const { status, body } = await check(host, listed);
        assert.equal(status, 400, host);
        assert.match(body.error, /the service does not connect to private/, host);
      }
    } finally {
      await listed.close();
    }
  });

  it('regression (issue 18): refuses fullwidth and circled digits as not a host name, never reads them as 127.0.0.1', async () => {
    const before = connections;
    // ALLOW_PRIVATE_TARGETS is on here: before the fix these reached the server at 127.0.0.1.
    for (const host of ['１２７.０.０.１', '127.0.0.１', '①②⑦.0.0.1', `https://１２７.０.０.１/`]) {
      const { status, body } = await check(host);
      assert.equal(status, 400, host);
      assert.match(
        body.error,
        /'host': must be a domain name or an IP address \(host name has the non-ASCII numeric/,
        host,
      );
    }
    assert.equal(connections, before);
  });

  it('regression (issue 18): a name that does not exist is a 400, a resolver that fails a 502', async () => {
    const missing = await check('missing.tls.test');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /missing\.tls\.test has no address \(the name does not resolve\)/);
    const noAddress = await check('tls.test');
    assert.equal(noAddress.status, 400, 'a name that exists without address records');
    const broken = await check('servfail.tls.test');
    assert.equal(broken.status, 502);
    assert.match(
      broken.body.error,
      /TLS check of servfail\.tls\.test failed: could not resolve servfail\.tls\.test: .*SERVFAIL/,
    );
  });

  it('answers 400 for what is not a host name, and for a name without an address', async () => {
    // 0177.0.0.1 and 127.1 are 127.0.0.1 to a URL parser: refused, not checked as that address.
    for (const host of ['', 'bad host', '_srv.tls.test', 'http://valid.tls.test/', '0177.0.0.1', '127.1']) {
      const { status, body } = await check(host);
      assert.equal(status, 400, host);
      assert.match(body.error, /'host'/);
    }
    const unknown = await check('missing.tls.test');
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /missing\.tls\.test has no address/);
  });

  it('answers 502 when the port is closed, silent, or not TLS, within TLS_TIMEOUT_MS', async () => {
    const run = async (port: number) => {
      const other = await buildTestApp({ ...env, TLS_CHECK_PORT: String(port), TLS_TIMEOUT_MS: '400' });
      try {
        const started = performance.now();
        const result = await check('valid.tls.test', other);
        return { ...result, elapsed: performance.now() - started };
      } finally {
        await other.close();
      }
    };
    const refusedPort = await closedPort();
    const refused = await run(refusedPort);
    assert.equal(refused.status, 502);
    assert.equal(
      refused.body.error,
      `TLS check of valid.tls.test failed: valid.tls.test (127.0.0.1) port ${refusedPort}: connection refused.`,
    );
    const silentPort = (silent.address() as net.AddressInfo).port;
    const timedOut = await run(silentPort);
    assert.equal(timedOut.status, 502);
    assert.equal(
      timedOut.body.error,
      `TLS check of valid.tls.test failed: valid.tls.test (127.0.0.1) port ${silentPort}: no TLS handshake within 400 ms.`,
    );
    assert.ok(timedOut.elapsed < 1500, `took ${timedOut.elapsed} ms`);
    const plainPort = (plain.address() as net.AddressInfo).port;
    const notTls = await run(plainPort);
    assert.equal(notTls.status, 502);
    assert.match(notTls.body.error, new RegExp(`valid.tls.test \\(127.0.0.1\\) port ${plainPort} does not speak TLS`));
    // OpenSSL's reason, without its thread id, error code, function or source file and line.
    assert.match(notTls.body.error, /\(OpenSSL: [a-z ]+\)\.$/);
    assert.doesNotMatch(notTls.body.error, /deps\/openssl|0A0|\n/);
  });
});
