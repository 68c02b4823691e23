import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { formatServer } from '../../src/dns/servers.ts';
import { buildTestApp } from '../support/app.ts';
import { findKnotd, type RealDnsServer, startRealDnsServer } from '../support/real-dns-server.ts';

/**
 * /api/v1/mail against a real authoritative server (Knot DNS) serving test/fixtures/dns/mail.test.zone:
 * one subdomain per scenario. Skips, saying so, without the Debian package `knot`.
 */

const skip = findKnotd() === null ? 'knotd (apt package knot) not installed' : false;
if (skip) console.log(`# mail real-server test skipped: ${skip}`);

type Report = {
  domain: string;
  exists: boolean;
  problems: string[];
  mx: {
    found: boolean;
    records: Array<{ preference: number; host: string; a: string[]; aaaa: string[] }>;
    problems: string[];
  };
  spf: {
    found: boolean;
    record: string | null;
    mechanisms: Array<{ qualifier: string; name: string; value: string | null }>;
    modifiers: Array<{ name: string; value: string }>;
    lookups: number;
    void_lookups: number;
    problems: string[];
  };
  dmarc: Record<string, unknown> & { found: boolean; problems: string[] };
  dkim: (Record<string, unknown> & { found: boolean; problems: string[] }) | null;
  mta_sts: { found: boolean; id: string | null; problems: string[] };
  tls_rpt: { found: boolean; rua: string[]; problems: string[] };
};

describe('/api/v1/mail against a real DNS server', { skip }, () => {
  let real: RealDnsServer;
  let app: FastifyInstance;
  before(async () => {
    real = await startRealDnsServer(['mail.test']);
    app = await buildTestApp({ DNS_SERVERS: formatServer(real.server), RATE_LIMITS: 'public=100000/100000' });
  });
  after(async () => {
    await app?.close();
    await real?.stop();
  });

  async function check(domain: string, selector?: string): Promise<Report> {
    const query = new URLSearchParams({ domain, ...(selector ? { dkim_selector: selector } : {}) });
    const response = await app.inject({ url: `/api/v1/mail?${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  it('reports a sound domain: MX by preference with addresses, SPF, DMARC tags, MTA-STS, TLS-RPT', async () => {
    const report = await check('good.mail.test', 's2048');
    assert.equal(report.exists, true);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.mx, {
      found: true,
      records: [
        { preference: 10, host: 'mx1.good.mail.test', a: ['192.0.2.1'], aaaa: ['2001:db8::1'] },
        { preference: 20, host: 'mx2.good.mail.test', a: ['192.0.2.2'], aaaa: [] },
      ],
      problems: [],
    });
    assert.equal(report.spf.record, 'v=spf1 include:_spf.good.mail.test -all');
    assert.deepEqual(report.spf.mechanisms, [
      { qualifier: '+', name: 'include', value: '_spf.good.mail.test' },
      { qualifier: '-', name: 'all', value: null },
    ]);
    assert.equal(report.spf.lookups, 1);
    assert.equal(report.spf.void_lookups, 0);
    assert.deepEqual(report.spf.problems, []);
    assert.deepEqual(report.dmarc, {
      found: true,
      record:
        'v=DMARC1; p=reject; sp=quarantine; pct=50; rua=mailto:agg@good.mail.test; ruf=mailto:fail@good.mail.test; adkim=s; aspf=r',
      p: 'reject',
      sp: 'quarantine',
      pct: 50,
      rua: ['mailto:agg@good.mail.test'],
      ruf: ['mailto:fail@good.mail.test'],
      adkim: 's',
      aspf: 'r',
      problems: [],
    });
    assert.equal(report.dkim?.found, true);
    assert.equal(report.dkim?.name, 's2048._domainkey.good.mail.test');
    assert.equal(report.dkim?.key_type, 'rsa');
    assert.equal(report.dkim?.bits, 2048);
    assert.deepEqual(report.dkim?.problems, []);
    assert.deepEqual(report.mta_sts, {
      found: true,
      record: 'v=STSv1; id=20260101T000000;',
      id: '20260101T000000',
      problems: [],
    });
    assert.deepEqual(report.tls_rpt.rua, ['mailto:tls@good.mail.test']);
    assert.equal(report.tls_rpt.found, true);
  });

  it('reads DKIM keys: RSA 1024 (a note), RSA 512 (weak), Ed25519, revoked, missing', async () => {
    const rsa1024 = (await check('good.mail.test', 's1024')).dkim;
    assert.equal(rsa1024?.bits, 1024);
    assert.match(rsa1024?.problems.join() ?? '', /1024 bits: RFC 8301 recommends at least 2048/);
    const rsa512 = (await check('good.mail.test', 's512')).dkim;
    assert.equal(rsa512?.bits, 512);
    assert.match(rsa512?.problems.join() ?? '', /512 bits: too weak/);
    const ed = (await check('good.mail.test', 'ed')).dkim;
    assert.deepEqual([ed?.key_type, ed?.bits, ed?.problems], ['ed25519', 256, []]);
    const revoked = (await check('good.mail.test', 'revoked')).dkim;
    assert.deepEqual([revoked?.found, revoked?.key_type, revoked?.bits], [true, null, null]);
    assert.match(revoked?.problems.join() ?? '', /revoked/);
    const missing = (await check('good.mail.test', 'nosuch')).dkim;
    assert.equal(missing?.found, false);
    assert.match(missing?.problems.join() ?? '', /no DKIM key at nosuch\._domainkey\.good\.mail\.test/);
    assert.equal((await check('good.mail.test')).dkim, null);
  });

  it('counts exactly 10 lookups (a, mx, includes and a redirect) without a problem', async () => {
    const report = await check('ten.mail.test');
    assert.equal(report.spf.lookups, 10);
    assert.equal(report.spf.void_lookups, 0);
    assert.deepEqual(report.spf.problems, []);
    assert.equal(report.dmarc.p, 'quarantine');
  });

  it('stops at the 11th lookup and names the term where a verifier stops', async () => {
    const report = await check('eleven.mail.test');
    assert.equal(report.spf.lookups, 11);
    assert.deepEqual(report.spf.problems, [
      'more than 10 DNS lookups: "include:c9.eleven.mail.test" in the record of c8.eleven.mail.test is lookup 11, where verifiers stop with permerror (RFC 7208 section 4.6.4)',
    ]);
  });

  it('reports two SPF records, and DMARC p=none', async () => {
    const report = await check('twospf.mail.test');
    assert.match(report.spf.problems.join(), /2 SPF records .*permerror/);
    assert.equal(report.dmarc.p, 'none');
    assert.match(report.dmarc.problems.join(), /p=none/);
  });

  it('reports +all, a missing DMARC record, and no MX', async () => {
    const report = await check('plusall.mail.test');
    assert.match(report.spf.problems.join(), /\+all/);
    assert.equal(report.dmarc.found, false);
    assert.match(report.dmarc.problems.join(), /no DMARC record at _dmarc\.plusall\.mail\.test/);
    assert.equal(report.mx.found, false);
    assert.match(report.mx.problems.join(), /no MX records/);
    assert.deepEqual([report.mta_sts.found, report.tls_rpt.found], [false, false]);
  });

  it('reports syntax errors in SPF and DMARC', async () => {
    const report = await check('syntax.mail.test');
    assert.deepEqual(report.spf.problems, [
      'syntax error: "ip4:192.0.2.300": ip4 needs ":" and an IPv4 address with an optional /0-32',
      'syntax error: "include=_spf.good.mail.test" uses "=" where the include mechanism takes ":"',
      'syntax error: "foo:bar" is not a known mechanism',
    ]);
    assert.deepEqual(report.dmarc.problems, [
      'syntax error: p=block is not none, quarantine or reject',
      'syntax error: pct=150 is not a whole number from 0 to 100',
    ]);
  });

  it('stops at the third void lookup', async () => {
    const report = await check('voids.mail.test');
    assert.equal(report.spf.lookups, 3);
    assert.equal(report.spf.void_lookups, 3);
    assert.match(report.spf.problems.join('\n'), /nx1\.voids\.mail\.test has no SPF record/);
    assert.match(report.spf.problems.join('\n'), /more than 2 void lookups .*nx3\.voids\.mail\.test/);
  });

  it('answers a domain that does not exist with 200, everything not found, and one problem', async () => {
    const report = await check('nx.mail.test', 's1');
    assert.equal(report.exists, false);
    assert.deepEqual(report.problems, ['nx.mail.test does not exist (the DNS answered NXDOMAIN)']);
    for (const section of [report.mx, report.spf, report.dmarc, report.dkim, report.mta_sts, report.tls_rpt]) {
      assert.equal(section?.found, false);
      assert.deepEqual(section?.problems, []);
    }
  });

  it('answers from the cache the second time: no query reaches the server', async () => {
    await check('good.mail.test', 's2048');
    // Stopped (the last test): any query would now fail, and the answer would say so.
    await real.stop();
    const again = await check('good.mail.test', 's2048');
    assert.equal(again.dkim?.bits, 2048);
    assert.equal(again.spf.lookups, 1);
    assert.deepEqual(
      again.mx.records.map((record) => record.a),
      [['192.0.2.1'], ['192.0.2.2']],
    );
    assert.deepEqual([again.spf.problems, again.mx.problems, again.dmarc.problems], [[], [], []]);
  });
});
