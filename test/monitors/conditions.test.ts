import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import type { Answer } from 'dns-packet';
import { formatServer } from '../../src/dns/servers.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { closedPort } from '../support/fake-whois-server.ts';
import { createTestPki, type IssuedCertificate, opensslAvailable, type TestPki } from '../support/test-pki.ts';
import { startMonitorHarness } from './monitor-steps.ts';

/**
 * Every condition of the http, ssl, dns, blacklist and mail monitors, made true and false by
 * changing a local fake between runs: a web server, a TLS server whose certificates are swapped by
 * name, and a DNS server whose records are edited (it also serves the DNSBL zone and the mail domain).
 */

const skip = opensslAvailable() ? false : 'the openssl command is not installed';
const DAY = 86_400_000;
const ZONE = 'conditions.test';
const DNSBL = `bl.${ZONE}`;

/** A web server whose answer per path (status, body, delay) the test sets. */
async function adjustableSite() {
  const replies = new Map<string, { status: number; body: string; delayMs: number }>();
  const server: Server = createServer(async (request, response) => {
    const reply = replies.get(request.url ?? '/') ?? { status: 404, body: 'not found', delayMs: 0 };
    if (reply.delayMs > 0) await sleep(reply.delayMs);
    response.writeHead(reply.status, { 'content-type': 'text/plain' });
    response.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${origin}${path}`,
    set: (path: string, status: number, body = 'hello world', delayMs = 0) =>
      replies.set(path, { status, body, delayMs }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const a = (name: string, data: string): Answer => ({ type: 'A', name, ttl: 0, class: 'IN', data });
const txt = (name: string, text: string): Answer => ({ type: 'TXT', name, ttl: 0, class: 'IN', data: [text] });

describe('monitor conditions, each made true and false by a local fake', { skip }, () => {
  let harness: Awaited<ReturnType<typeof startMonitorHarness>>;
  let site: Awaited<ReturnType<typeof adjustableSite>>;
  let dns: FakeDnsServer;
  let pki: TestPki;
  let tlsServer: tls.Server;
  let tlsPort: number;
  /** The DNS server's records, by owner name: edited between runs. */
  const records = new Map<string, Answer[]>();
  /** The certificate served for each SNI name: swapped between runs. */
  const served = new Map<string, tls.SecureContext>();
  const serve = (name: string, certificate: IssuedCertificate, chain = true) =>
    served.set(
      name,
      tls.createSecureContext({ key: certificate.keyPem, cert: chain ? certificate.chainPem : certificate.certPem }),
    );
  let certificates: Record<'expiry' | 'invalid' | 'problems' | 'expiring' | 'untrusted', IssuedCertificate>;

  before(async () => {
    site = await adjustableSite();
    dns = await startFakeDnsServer((question, context) =>
      recordsHandler([...records.values()].flat(), ZONE)(question, context),
    );
    pki = createTestPki();
    const now = Date.now();
    // Half a day past whole days, so days_remaining cannot change while the test runs.
    const lasting = (days: number) => ({
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + days * DAY + DAY / 2),
    });
    const leaf = (name: string) => ({ commonName: name, altNames: [name], key: 'ec-p256' as const });
    const good = (name: string) => {
      const host = `${name}.tls.${ZONE}`;
      records.set(host, [a(host, '127.0.0.1')]);
      return pki.issue(name, { ...leaf(host), ...lasting(60) });
    };
    certificates = {
      expiry: good('expiry'),
      invalid: good('invalid'),
      problems: good('problems'),
      expiring: pki.issue('expiring', { ...leaf(`expiry.tls.${ZONE}`), ...lasting(5) }),
      untrusted: pki.issueUntrusted('untrusted', { ...leaf(`invalid.tls.${ZONE}`), ...lasting(60) }),
    };
    tlsServer = tls.createServer({ SNICallback: (name, callback) => callback(null, served.get(name)) });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    tlsPort = (tlsServer.address() as AddressInfo).port;
    harness = await startMonitorHarness(
      {
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        DNS_SERVERS: formatServer(dns.server),
        DNS_CACHE_ENTRIES: '0',
        DNSBL_ZONES: `Fake list=${DNSBL}`,
        DNSBL_CACHE_SECONDS: '0',
      },
      { trustedCertificates: [pki.rootPem] },
    );
  });
  after(async () => {
    await harness?.close();
    await site?.close();
    await dns?.close();
    await new Promise((resolve) => tlsServer?.close(resolve));
    pki?.remove();
  });

  describe('http', () => {
    it('status_not: 200 is up, 503 is down, 200 again is up', async () => {
      site.set('/status', 200);
      await harness.follow({ type: 'http', target: site.url('/status'), conditions: { status_not: [200, 204] } }, [
        { state: 'up', cause: null },
        { change: () => site.set('/status', 503), state: 'down', cause: /^status 503 is not 200, 204$/ },
        { change: () => site.set('/status', 200), state: 'up', cause: null },
      ]);
    });

    it('total_ms_over: an answer at once is up, one after 300 ms is down', async () => {
      site.set('/slow', 200);
      await harness.follow({ type: 'http', target: site.url('/slow'), conditions: { total_ms_over: 200 } }, [
        { state: 'up', cause: null },
        {
          change: () => site.set('/slow', 200, 'hello world', 300),
          state: 'down',
          cause: /^took [\d.]+ ms, over 200 ms$/,
        },
        { change: () => site.set('/slow', 200), state: 'up', cause: null },
      ]);
    });

    it('body_missing: a body with the text is up, one without is down', async () => {
      site.set('/body', 200, 'all systems operational');
      await harness.follow({ type: 'http', target: site.url('/body'), conditions: { body_missing: 'operational' } }, [
        { state: 'up', cause: null },
        {
          change: () => site.set('/body', 200, 'maintenance'),
          state: 'down',
          cause: /^the body does not contain "operational"$/,
        },
        { change: () => site.set('/body', 200, 'all systems operational'), state: 'up', cause: null },
      ]);
    });

    it('without conditions: 404 is down, 200 up', async () => {
      site.set('/default', 404);
      await harness.follow({ type: 'http', target: site.url('/default') }, [
        { state: 'down', cause: /^status 404$/ },
        { change: () => site.set('/default', 200), state: 'up', cause: null },
      ]);
    });

    it('a closed port (the route answers 502) is down', async () => {
      const port = await closedPort();
      const listener = createServer((_request, response) => response.end('back'));
      try {
        await harness.follow({ type: 'http', target: `http://127.0.0.1:${port}/` }, [
          {
            state: 'down',
            cause: new RegExp(`^HTTP check of .+ failed at tcp: 127\\.0\\.0\\.1 port ${port}: connection refused`),
          },
          {
            change: () => new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve)),
            state: 'up',
            cause: null,
          },
        ]);
      } finally {
        await new Promise((resolve) => listener.close(resolve));
      }
    });
  });

  it('a monitored name that stops resolving is down', async () => {
    const name = `vanishing.${ZONE}`;
    records.set(name, [a(name, '127.0.0.1')]);
    site.set('/vanishing', 200);
    await harness.follow({ type: 'http', target: site.url('/vanishing').replace('127.0.0.1', name) }, [
      { state: 'up', cause: null },
      { change: () => records.delete(name), state: 'down', cause: /has no address/ },
    ]);
  });

  describe('ssl', () => {
    it('expires_within_days: 60 days left is up, 5 days is down', async () => {
      const host = `expiry.tls.${ZONE}`;
      serve(host, certificates.expiry);
      await harness.follow({ type: 'ssl', target: `${host}:${tlsPort}`, conditions: { expires_within_days: 14 } }, [
        { state: 'up', cause: null },
        {
          change: () => serve(host, certificates.expiring),
          state: 'down',
          cause: /^the certificate expires in 5 days \(\S+\), within 14$/,
        },
        { change: () => serve(host, certificates.expiry), state: 'up', cause: null },
      ]);
    });

    it('invalid: a certificate of the trusted CA is up, one of an untrusted root is down', async () => {
      const host = `invalid.tls.${ZONE}`;
      serve(host, certificates.invalid);
      await harness.follow({ type: 'ssl', target: `${host}:${tlsPort}`, conditions: { invalid: true } }, [
        { state: 'up', cause: null },
        {
          change: () => serve(host, certificates.untrusted),
          state: 'down',
          cause: /^invalid: unknown_issuer$/,
        },
        { change: () => serve(host, certificates.invalid), state: 'up', cause: null },
      ]);
    });

    it('problems_any: a full chain is up, a chain without its intermediate is down', async () => {
      const host = `problems.tls.${ZONE}`;
      const certificate = certificates.problems;
      serve(host, certificate);
      await harness.follow({ type: 'ssl', target: `${host}:${tlsPort}`, conditions: { problems_any: true } }, [
        { state: 'up', cause: null },
        {
          change: () => serve(host, certificate, false),
          state: 'down',
          cause: /^The chain is incomplete: .*"netinfo Test Issuing CA", the issuer of the last one, was not sent/,
        },
        { change: () => serve(host, certificate), state: 'up', cause: null },
      ]);
    });
  });

  describe('dns', () => {
    it('answer_changed: the first answer is the baseline; another is down, the same again up', async () => {
      const name = `changing.${ZONE}`;
      records.set(name, [a(name, '127.0.0.10')]);
      await harness.follow(
        { type: 'dns', target: name, options: { record_type: 'A' }, conditions: { answer_changed: true } },
        [
          { state: 'up', cause: null },
          { state: 'up', cause: null },
          {
            change: () => records.set(name, [a(name, '127.0.0.11'), a(name, '127.0.0.12')]),
            state: 'down',
            cause: /^the answer changed from 127\.0\.0\.10 to 127\.0\.0\.11, 127\.0\.0\.12$/,
          },
          { change: () => records.set(name, [a(name, '127.0.0.10')]), state: 'up', cause: null },
        ],
      );
    });

    it('missing: a name with only TXT is down for A; given an A record it is up', async () => {
      const name = `missing.${ZONE}`;
      records.set(name, [txt(name, 'no address here')]);
      await harness.follow(
        { type: 'dns', target: name, options: { record_type: 'A' }, conditions: { missing: true } },
        [
          { state: 'down', cause: /^no A record$/ },
          { change: () => records.set(name, [a(name, '127.0.0.20')]), state: 'up', cause: null },
        ],
      );
    });

    it('rcode_not_noerror: NXDOMAIN is down, an existing name up', async () => {
      const name = `appearing.${ZONE}`;
      records.delete(name);
      await harness.follow(
        { type: 'dns', target: name, options: { record_type: 'A' }, conditions: { rcode_not_noerror: true } },
        [
          { state: 'down', cause: /^status NXDOMAIN$/ },
          { change: () => records.set(name, [a(name, '127.0.0.30')]), state: 'up', cause: null },
        ],
      );
    });
  });

  it('blacklist listed_any: 127.0.0.2 listed by the fake DNSBL is down, not listed up', async () => {
    const query = `2.0.0.127.${DNSBL}`;
    records.set(query, [a(query, '127.0.0.2')]);
    await harness.follow({ type: 'blacklist', target: '127.0.0.2', conditions: { listed_any: true } }, [
      { state: 'down', cause: /^listed on Fake list$/ },
      { change: () => records.delete(query), state: 'up', cause: null },
      { change: () => records.set(query, [a(query, '127.0.0.2')]), state: 'down', cause: /^listed on Fake list$/ },
    ]);
  });

  it('mail new_problem: the first report is the baseline, its problems are not news; a DMARC record removed is', async () => {
    const domain = `mail.${ZONE}`;
    const dmarc = `_dmarc.${domain}`;
    const goodDmarc = () => records.set(dmarc, [txt(dmarc, `v=DMARC1; p=reject; rua=mailto:dmarc@${domain}`)]);
    // No SPF record: a problem from the first report on.
    records.set(domain, [
      { type: 'MX', name: domain, ttl: 0, class: 'IN', data: { preference: 10, exchange: `mx.${domain}` } },
    ]);
    records.set(`mx.${domain}`, [a(`mx.${domain}`, '127.0.0.1')]);
    goodDmarc();
    const [baseline] = await harness.follow({ type: 'mail', target: domain, conditions: { new_problem: true } }, [
      { state: 'up', cause: null },
      { change: () => records.delete(dmarc), state: 'down', cause: /^new: dmarc: no DMARC record at _dmarc\.mail\./ },
      { change: goodDmarc, state: 'up', cause: null },
    ]);
    assert.match(String(baseline?.summary.problems), /^spf: /);
  });
});
