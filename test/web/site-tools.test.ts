// The tool pages as a person uses them, in Debian's headless Chromium driven by playwright-core,
// against the real app whose upstreams are local fakes (tool-fakes.ts): each page at 375 and 1280
// px, the values it shows, the live growth of the ping chart and the traceroute and MTR tables, no request
// to another origin, no horizontal overflow, and no serious or critical axe-core violation.
// Screenshots (light and dark) go to .tmp/screenshots/.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp } from '../support/app.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { checkToolPage, overflow, screenshot, startSite, WIDTHS, watchedPage } from '../support/site-browser.ts';
import { opensslAvailable } from '../support/test-pki.ts';
import { LINE_GAP_MS, LONG_TXT, MTR_TARGET, startToolFakes } from './tool-fakes.ts';

const skip = chromiumSkipReason || (opensslAvailable() ? false : 'the openssl command is not installed');
if (skip) console.log(`# ${skip}`);

/** The canned /api/v1/batch answer (that endpoint is built elsewhere): one located hop, one special, one error. */
const BATCH_ANSWER = {
  '192.0.2.1': {
    ip: '192.0.2.1',
    special: { kind: 'documentation', range: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737' },
  },
  '198.51.100.7': {
    ip: '198.51.100.7',
    location: { country: 'Netherlands', countryCode: 'NL' },
    network: { asn: 'AS64500', provider: 'Example Transit' },
  },
  '127.0.0.1': { error: 'no data for this address' },
};

describe('tool pages in Chromium', { skip, timeout: 240_000 }, () => {
  let fakes: Awaited<ReturnType<typeof startToolFakes>>;
  let site: Awaited<ReturnType<typeof startSite>>;
  let browser: Browser;
  let base = '';

  before(async () => {
    fakes = await startToolFakes();
    site = await startSite(fakes.env, fakes.deps);
    ({ base, browser } = site);
  });
  after(async () => {
    await site?.close();
    await fakes?.close();
  });

  /** A fresh page (site-browser.ts records foreign requests and script errors), `prepare`d, then opened. */
  async function open(width: number, url: string, prepare?: (page: Page) => Promise<unknown>) {
    const watched = await watchedPage(browser, base, { width });
    await prepare?.(watched.page);
    await watched.page.goto(`${base}${url}`);
    return watched;
  }

  const checkPage = checkToolPage;

  /**
   * Waits until the locator matches exactly `count` elements, polling every 20 ms (a live page
   * cannot be asked with waitForFunction: its CSP forbids the eval that needs). Seeing more means
   * the page skipped a step: it fails then.
   */
  async function waitForCount(locator: ReturnType<Page['locator']>, count: number, timeoutMs = 10 * LINE_GAP_MS) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const now = await locator.count();
      if (now === count) return;
      assert.ok(now < count, `saw ${now} before ${count}`);
      assert.ok(Date.now() < end, `still ${now}, not ${count}, after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** The text as rendered (a term and its value apart), on one line. */
  const text = async (page: Page, selector: string) =>
    (
      await page
        .locator(selector)
        // biome-ignore lint/performance/useDomNodeTextContent: the rendered text keeps a term apart from its value; textContent runs them together
        .evaluateAll((elements) => elements.map((element) => (element as { innerText: string }).innerText))
    )
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();

  it('/tools lists every tool, each linking to its page', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools');
      const { page } = watched;
      const links = await page
        .locator('.tool-list a')
        .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
      assert.deepEqual(links, [
        '/tools/dns',
        '/tools/whois',
        '/tools/ssl',
        '/tools/blacklist',
        '/tools/rpki',
        '/tools/abuse',
        '/tools/mail',
        '/tools/http',
        '/tools/ping',
        '/tools/traceroute',
        '/tools/mtr',
        '/tools/resolver',
        '/nodes',
      ]);
      await checkPage(watched, `tools-${width}`);
    }
  });

  it('DNS: opening a URL with parameters runs the lookup; records with TTLs, curl and raw JSON', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/dns?host=example.test&type=TXT');
      const { page } = watched;
      const row = page.locator('table.records tbody tr');
      await row.first().waitFor();
      assert.equal(await row.count(), 1);
      const [name, type, ttl, value] = (await row.locator('td').allTextContents()).map((cell) => cell.trim());
      assert.deepEqual([name, type, value], ['example.test', 'TXT', LONG_TXT]);
      // The second width's answer may come from the service's cache, its TTL counted down.
      assert.match(ttl ?? '', /^(86400 \(1 d\)|8639\d \(23 h 59 min\))$/);
      assert.equal(await page.getByLabel('Record type').inputValue(), 'TXT');
      assert.equal(await page.title(), 'DNS lookup: example.test TXT · netinfo');
      assert.equal(
        await page.locator('.code code').first().textContent(),
        `curl '${base}/api/v1/dns?host=example.test&record_type=TXT'`,
      );
      await page.getByText('Raw JSON').click();
      assert.equal(JSON.parse((await page.locator('pre.raw').textContent()) ?? '').records[0].value, LONG_TXT);
      await checkPage(watched, `dns-${width}`);
    }
  });

  it('DNS: submitting the form puts its state in the URL and runs; Back runs the earlier one', async () => {
    const watched = await open(1280, '/tools/dns');
    const { page } = watched;
    assert.equal(await page.locator('#tool-result').textContent(), '', 'nothing runs without a host');
    // By keyboard only: type, choose the type with the arrow keys, submit with Enter.
    await page.getByLabel('Host name').focus();
    await page.keyboard.type('www.example.test');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/tools/dns?host=www.example.test&type=A`);
    await page.locator('table.records tbody tr').nth(2).waitFor();
    assert.deepEqual(await page.locator('table.records tbody td:nth-child(4)').allTextContents(), [
      'example.test',
      '192.0.2.10',
      '192.0.2.11',
    ]);
    await page.getByLabel('Record type').selectOption('MX');
    await page.getByRole('button', { name: 'Look up' }).last().click();
    await page.waitForURL(`${base}/tools/dns?host=www.example.test&type=MX`);
    await page.locator('table.records td', { hasText: '10 mx.example.test' }).waitFor();
    await page.goBack();
    await page.waitForURL(`${base}/tools/dns?host=www.example.test&type=A`);
    await page.locator('table.records td', { hasText: '192.0.2.11' }).waitFor();
    assert.equal(await page.getByLabel('Record type').inputValue(), 'A');
    await checkPage(watched, 'dns-form-1280');
  });

  it('issue 28: DNS shows MX records by preference, whatever order the server sent them in', async () => {
    // tool-fakes.ts serves good.mail.test's MX records as 20 mx2, then 10 mx1.
    const { page } = await open(1280, '/tools/dns?host=good.mail.test&type=MX');
    await page.locator('table.records tbody tr').nth(1).waitFor();
    assert.deepEqual(await page.locator('table.records tbody td:nth-child(4)').allTextContents(), [
      '10 mx1.good.mail.test',
      '20 mx2.good.mail.test',
    ]);
  });

  it('DNS: the DNSSEC option shows the AD flag in words and each RRSIG read out; the new types are offered', async () => {
    const offered = async (page: Page) => page.getByLabel('Record type').locator('option').allTextContents();
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/dns?host=signed.example.test');
      const { page } = watched;
      await page.locator('table.records').waitFor();
      assert.equal(await page.locator('.dnssec-state').count(), 0, 'no DNSSEC state when not asked');
      for (const type of ['DS', 'DNSKEY', 'CAA', 'HTTPS', 'SVCB', 'TLSA'])
        assert.ok((await offered(page)).includes(type), type);
      await page.getByLabel('DNSSEC').selectOption('true');
      await page.getByRole('button', { name: 'Look up' }).last().click();
      await page.waitForURL(`${base}/tools/dns?host=signed.example.test&type=A&dnssec=true`);
      await page.locator('.dnssec-state').waitFor();
      assert.equal(
        await text(page, '.dnssec-state.good'),
        '✓ Authenticated (AD flag set): the resolver validated this answer with DNSSEC.',
      );
      assert.deepEqual(
        await page
          .locator('table.records tbody tr')
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type'))),
        ['A', 'RRSIG'],
      );
      assert.equal(
        await text(page, 'td.rrsig .rrsig-summary'),
        'Signs A, by example.test (key 12345, algorithm 13), valid 2026-11-25 00:00 UTC to 2026-12-25 00:00 UTC',
      );
      assert.match(
        await text(page, 'td.rrsig .rrsig-raw'),
        /^A 13 3 60 20261225000000 20261125000000 12345 example\.test Bwc/,
      );
      assert.match(
        await text(page, '.tool-result .card p.hint'),
        /^1 record and 1 signature for signed\.example\.test A/,
      );
      await checkPage(watched, `dns-dnssec-${width}`);
    }
    // An unsigned answer says it is not authenticated, and a new type answers like any other.
    const watched = await open(375, '/tools/dns?host=example.test&type=CAA&dnssec=true');
    const { page } = watched;
    await page.locator('.dnssec-state').waitFor();
    assert.match(await text(page, '.dnssec-state.warn'), /^! Not authenticated \(AD flag not set\)/);
    assert.equal(await text(page, 'table.records tbody td:nth-child(4)'), '0 issue "ca.example.test"');
    await checkPage(watched, 'dns-dnssec-unsigned-375');
  });

  it('without JavaScript the form still puts its state in the URL, and the page links the API answer', async () => {
    const watched = await watchedPage(browser, base, { width: 375, javaScript: false });
    const { page } = watched;
    await page.goto(`${base}/tools/dns`);
    await page.getByLabel('Host name').fill('example.test');
    await page.getByLabel('Record type').selectOption('MX');
    await Promise.all([
      // A plain GET form sends every control, DNSSEC "off" as an empty value: the page reads it as off.
      page.waitForURL(`${base}/tools/dns?host=example.test&type=MX&dnssec=`),
      page.getByRole('button', { name: 'Look up' }).last().click(),
    ]);
    assert.equal(await page.getByLabel('Host name').inputValue(), 'example.test');
    const link = page.locator('.alert.warn a');
    assert.equal(await link.getAttribute('href'), '/api/v1/dns?host=example.test&record_type=MX');
    // axe needs JavaScript in the page: the same page with it on is checked above.
    assert.equal(await overflow(page), 0);
    assert.deepEqual(watched.problems, []);
    await screenshot(page, 'dns-no-javascript-375');
    await page.context().close();
  });

  it('API errors are shown in words: 400 with its message, 502 with its cause', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/dns?host=192.0.2.1&type=A');
      const { page } = watched;
      const alert = page.locator('.alert.error');
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /^The API cannot use this input: .*'host'.*use record_type=PTR/);
      await checkPage(watched, `dns-400-${width}`, { failedLoads: true });
    }
    const watched = await open(1280, '/tools/dns?host=servfail.example.test&type=A');
    const { page } = watched;
    await page.locator('.alert.error').waitFor();
    assert.match(
      (await page.locator('.alert.error').textContent()) ?? '',
      /^The lookup failed upstream: DNS lookup of servfail\.example\.test A failed: the DNS server answered SERVFAIL/,
    );
    const { page: invalid } = await open(1280, '/tools/dns?host=example.test&type=BOGUS');
    assert.equal(await invalid.getByLabel('Record type').inputValue(), 'BOGUS', 'the URL’s value stays');
    await invalid.locator('.alert.error', { hasText: "'record_type': must be one of A, AAAA" }).waitFor();
    await invalid.context().close();
    await checkPage(watched, 'dns-502-1280', { failedLoads: true });
  });

  it('a 429 says when the limit resets, in words', async () => {
    const limited = await buildTestApp({ ...fakes.env, RATE_LIMITS: 'public=1/500' }, fakes.deps);
    await limited.listen({ port: 0, host: '127.0.0.1' });
    const port = (limited.server.address() as { port: number }).port;
    try {
      // The one request of the hour, spent from this same address; pages themselves are not counted.
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/dns?host=example.test&record_type=A`)).status, 200);
      const page = await browser.newPage({ viewport: { width: 375, height: 900 } });
      await page.goto(`http://127.0.0.1:${port}/tools/dns?host=example.test&type=A`);
      const alert = page.locator('.alert.error');
      await alert.waitFor();
      // Said once, in words (issue 28: the API's ISO time and the page's local time were both shown).
      const said = (await alert.textContent()) ?? '';
      assert.match(
        said,
        /^Too many requests: Rate limit exceeded: .+ at \d\d:\d\d UTC \((in \d+ minutes|within a minute)\)\./,
      );
      assert.equal(said.match(/\d\d:\d\d/g)?.length, 1, said);
      assert.doesNotMatch(said, /\d{10}|T\d\d:\d\d:\d\d/, 'no UNIX number, no ISO time');
      await screenshot(page, 'dns-429-375-light');
      // A stream refused before it starts is a JSON error too, read from the same fetch.
      await page.goto(`http://127.0.0.1:${port}/tools/ping?host=127.0.0.1`);
      await page.locator('.alert.error', { hasText: /^Too many requests: .+ UTC \(/ }).waitFor();
      assert.equal(await page.locator('svg.chart').count(), 0);
      await page.close();
    } finally {
      await limited.close();
    }
  });

  it('WHOIS: parsed fields first, the raw answer folded', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/whois?target=example.test');
      const { page } = watched;
      await page.locator('dl.facts').waitFor();
      const facts = await text(page, 'dl.facts');
      assert.match(
        facts,
        /Domain example\.test Registrar Example Registrar, Inc\. Registered on 1995-08-14 Expires on 2030-08-13/,
      );
      assert.match(
        facts,
        /Name servers a\.iana-servers\.net b\.iana-servers\.net Status clientDeleteProhibited clientTransferProhibited DNSSEC signedDelegation/,
      );
      const raw = page.locator('details', { hasText: 'Raw WHOIS answer' });
      assert.equal(await raw.locator('pre').isVisible(), false, 'folded');
      await raw.locator('summary').click();
      assert.match((await raw.locator('pre').textContent()) ?? '', /^Domain Name: EXAMPLE\.TEST\n/);
      await checkPage(watched, `whois-${width}`);
    }
  });

  it('SSL: a clear verdict with the days remaining', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/ssl?host=valid.tls.test');
      const { page } = watched;
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict.good').textContent(), 'Valid: 90 days left.');
      assert.match(
        await text(page, 'dl.facts'),
        /Alternative names valid\.tls\.test www\.valid\.tls\.test Issuer netinfo Test Issuing CA \(netinfo tests\)/,
      );
      assert.equal(
        await page.locator('.tool-result table tbody tr').count(),
        2,
        'the chain as served: leaf and intermediate (issue 24)',
      );
      await checkPage(watched, `ssl-${width}`);
    }
    const watched = await open(375, '/tools/ssl?host=expired.tls.test');
    const { page } = watched;
    await page.locator('.verdict').waitFor();
    assert.match((await page.locator('.verdict.bad').textContent()) ?? '', /^Not valid: the certificate expired at /);
    assert.match(await text(page, '.verdict.bad + p'), /^It expired 4 days ago \(/);
    await checkPage(watched, 'ssl-expired-375');
  });

  it('SSL: port, STARTTLS and TLS versions from the form; checks in words; the chain as served, the server’s own first', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/ssl');
      const { page } = watched;
      await page.getByLabel('Host name, host:port, URL or IP address').fill('valid.tls.test');
      await page.getByLabel('Port', { exact: true }).fill(String(fakes.smtpPort));
      await page.getByLabel('STARTTLS').selectOption('smtp');
      await page.getByLabel('TLS versions').selectOption('true');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.waitForURL(
        `${base}/tools/ssl?host=valid.tls.test&port=${fakes.smtpPort}&starttls=smtp&protocols=true`,
      );
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict.good').textContent(), 'Valid: 90 days left.');
      assert.equal(await page.locator('ul.problems').count(), 0);
      assert.deepEqual(await page.locator('ul.checks li').allTextContents(), [
        '✓ Names valid.tls.test',
        '✓ Chain complete: the certificates served lead to a trusted root',
        '– No OCSP response stapled',
        '– No SCTs embedded in the certificate',
      ]);
      assert.match(
        await text(page, 'dl.facts'),
        new RegExp(`Server 127\\.0\\.0\\.1 port ${fakes.smtpPort}, after STARTTLS \\(SMTP\\) SNI valid\\.tls\\.test`),
      );
      const chain = await page
        .locator('table.chain tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => (td.textContent ?? '').trim())),
        );
      assert.deepEqual(chain, [
        ['1 (this server’s)', 'valid.tls.test', 'netinfo Test Issuing CA'],
        ['2', 'netinfo Test Issuing CA', 'netinfo Test Root CA'],
      ]);
      const versions = await page
        .locator('table.protocols tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
        );
      assert.deepEqual(versions, [
        ['TLS 1', '✓ refused'],
        ['TLS 1.1', '✓ refused'],
        ['TLS 1.2', '✓ accepted'],
        ['TLS 1.3', '✓ accepted'],
      ]);
      await checkPage(watched, `ssl-starttls-${width}`);
    }
  });

  it('SSL: problems first, as a list; a name the certificate does not hold is a failed check', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/ssl?host=other.tls.test');
      const { page } = watched;
      await page.locator('.verdict').waitFor();
      assert.match((await page.locator('.verdict.bad').textContent()) ?? '', /^Not valid: /);
      assert.deepEqual(await page.locator('ul.problems li').allTextContents(), [
        'The certificate does not match the name other.tls.test: it is for valid.tls.test, www.valid.tls.test.',
      ]);
      assert.equal(await page.locator('ul.checks li').first().textContent(), '✗ Does not name other.tls.test');
      assert.equal(await page.locator('table.protocols').count(), 0, 'versions only when asked');
      await checkPage(watched, `ssl-mismatch-${width}`);
    }
  });

  it('Blacklist: each list listed, not listed or error, as the API reports it', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/blacklist?ip=127.0.0.2');
      const { page } = watched;
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict.bad').textContent(), 'Listed on 1 of 3 lists; 1 could not answer.');
      const rows = page.locator('.tool-result tbody tr');
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status'))), [
        'listed',
        'not_listed',
        'error',
      ]);
      assert.deepEqual(await page.locator('.tool-result tbody .badge').allTextContents(), [
        'listed',
        'not listed',
        'error',
      ]);
      assert.match(await text(page, '.tool-result tbody tr:first-child'), /Returned 127\.0\.0\.2\. Listed for testing/);
      assert.match(await text(page, '.tool-result tbody tr:last-child'), /the DNS server answered SERVFAIL/);
      await checkPage(watched, `blacklist-${width}`);
    }
  });

  it('Mail: each part with its state in words, the MX addresses, SPF lookups "n of 10", DMARC tags, the DKIM key', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/mail?domain=good.mail.test&selector=s1');
      const { page } = watched;
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict.good').textContent(), 'No problems found for good.mail.test.');
      assert.deepEqual(await page.locator('ul.part-overview li').allTextContents(), [
        'MX✓ OK',
        'SPF✓ OK',
        'DMARC✓ OK',
        'DKIM✓ OK',
        'MTA-STS✓ OK',
        'TLS-RPT✓ OK',
      ]);
      assert.equal(await page.locator('ul.problems').count(), 0);
      const mx = await page
        .locator('table.mx tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
        );
      assert.deepEqual(mx, [
        ['10', 'mx1.good.mail.test', '192.0.2.25', '2001:db8::25'],
        ['20', 'mx2.good.mail.test', '192.0.2.26', 'none'],
      ]);
      const spf = await text(page, 'section[aria-labelledby="card-spf"]');
      assert.match(
        spf,
        /Found, no problems Record v=spf1 mx include:_spf\.good\.mail\.test -all DNS lookups 2 of 10 Void lookups 0 of 2/,
      );
      assert.deepEqual(await page.locator('table.spf tbody td:nth-child(1)').allTextContents(), [
        '+ pass',
        '+ pass',
        '- fail',
      ]);
      assert.match(
        await text(page, 'section[aria-labelledby="card-dmarc"]'),
        /Policy \(p\) reject Subdomains \(sp\) not set \(receivers use p\) Applies to \(pct\) not set \(receivers use 100%\) Aggregate reports \(rua\) mailto:dmarc@good\.mail\.test/,
      );
      assert.match(await text(page, 'section[aria-labelledby="card-dkim-s1-"]'), /Key type rsa Key size 2048 bits/);
      assert.match(await text(page, 'section[aria-labelledby="card-mta-sts"]'), /Policy id 20261125T0000/);
      assert.match(
        await text(page, 'section[aria-labelledby="card-tls-rpt"]'),
        /Reports to \(rua\) mailto:tls-reports@good\.mail\.test/,
      );
      await checkPage(watched, `mail-${width}`);
    }
  });

  it('Mail: problems are listed under their part; a part not published says so; the form puts the selector in the URL', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/mail');
      const { page } = watched;
      await page.getByLabel('Mail domain').fill('bad.mail.test');
      await page.getByLabel('DKIM selector (optional)').fill('s1');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.waitForURL(`${base}/tools/mail?domain=bad.mail.test&selector=s1`);
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict.bad').textContent(), '4 parts of bad.mail.test have problems.');
      assert.deepEqual(await page.locator('ul.part-overview li').allTextContents(), [
        'MX✗ Missing, 1 problem',
        'SPF✗ Found, 1 problem',
        'DMARC✗ Found, 1 problem',
        'DKIM✗ Missing, 1 problem',
        'MTA-STS– Not published',
        'TLS-RPT– Not published',
      ]);
      const problems = (id: string) =>
        page.locator(`section[aria-labelledby="${id}"] ul.problems li`).allTextContents();
      assert.deepEqual(await problems('card-mx'), [
        'bad.mail.test has no MX records: senders fall back to its A and AAAA addresses (RFC 5321 section 5.1)',
      ]);
      assert.deepEqual(await problems('card-spf'), ['+all: every server on the internet passes SPF for this domain']);
      assert.match((await problems('card-dmarc')).join(), /^p=none: receivers only report/);
      assert.deepEqual(await problems('card-dkim-s1-'), [
        'no DKIM key at s1._domainkey.bad.mail.test: check the selector',
      ]);
      assert.equal(await text(page, 'section[aria-labelledby="card-mta-sts"] .part-state'), '– Not published');
      assert.equal(await page.locator('table.mx').count(), 0, 'no empty MX table');
      await checkPage(watched, `mail-problems-${width}`);
    }
    const watched = await open(375, '/tools/mail?domain=good.mail.test');
    await watched.page.locator('.verdict.good').waitFor();
    assert.match(
      await text(watched.page, 'section[aria-labelledby="card-dkim"]'),
      /^DKIM Not checked: give a DKIM selector/,
    );
    await checkPage(watched, 'mail-no-selector-375');
  });

  it('HTTP: status, version, the redirect chain, a waterfall of the phases, headers, TLS', async () => {
    const first = `http://valid.tls.test:${fakes.webPort}/old`;
    const final = `https://www.valid.tls.test:${fakes.securePort}/new`;
    for (const width of WIDTHS) {
      const watched = await open(width, `/tools/http?url=${encodeURIComponent(first)}`);
      const { page } = watched;
      await page.locator('.verdict').waitFor();
      assert.match(
        (await page.locator('.verdict.good').textContent()) ?? '',
        /^200 OK over HTTP\/2 in [\d.]+ ms, after 1 redirect\.$/,
      );
      assert.match(
        await text(page, 'section[aria-labelledby="card-response"] dl.facts'),
        /HTTP version 2 Body 2\.0 KiB \(2048 bytes\)/,
      );
      const chain = await page
        .locator('table.redirects tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
        );
      assert.deepEqual(chain, [
        ['1', '301 Moved Permanently', first, final],
        ['2', '200 OK', final, 'final answer'],
      ]);
      const phases = await page.locator('ol.waterfall li[data-phase]').evaluateAll((items) =>
        items.map((item) => {
          const bar = item.querySelector('.bar')?.getBoundingClientRect();
          const track = item.querySelector('.track')?.getBoundingClientRect();
          return {
            phase: item.getAttribute('data-phase'),
            start: (bar?.left ?? 0) - (track?.left ?? 0),
            width: bar?.width ?? 0,
          };
        }),
      );
      assert.deepEqual(
        phases.map((phase) => phase.phase),
        ['redirect', 'dns', 'tcp', 'tls', 'first_byte', 'download'],
      );
      // A waterfall: each bar is drawn, and starts where the one before it ends.
      for (const [index, phase] of phases.entries()) {
        assert.ok(phase.width >= 2, `${phase.phase} has a bar`);
        if (index > 0) {
          const before = phases[index - 1] as (typeof phases)[number];
          assert.ok(
            Math.abs(phase.start - (before.start + before.width)) <= 2.5,
            `${phase.phase} follows ${before.phase}`,
          );
        }
      }
      assert.match(await text(page, 'ol.waterfall li.total'), /^Total [\d.]+ ms$/);
      // Every header the server sent, in its order (issue 28: not a selection).
      assert.match(
        await text(page, 'table.headers'),
        /^Response headers Header Value content-type text\/html; charset=utf-8 cache-control max-age=60 server fake-web date /,
      );
      assert.match(
        await text(page, 'section[aria-labelledby="card-tls"]'),
        /✓ Certificate valid Protocol TLSv1\.3 .* Subject valid\.tls\.test Issuer netinfo Test Issuing CA/,
      );
      await checkPage(watched, `http-${width}`);
    }
  });

  it('HTTP: the form sends the method; a 404 over http:// reads as an error status, without TLS', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/http');
      const { page } = watched;
      const url = `http://valid.tls.test:${fakes.webPort}/missing`;
      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByLabel('Method').selectOption('HEAD');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.waitForURL(`${base}/tools/http?url=${encodeURIComponent(url)}&method=HEAD`);
      await page.locator('.verdict').waitFor();
      assert.match((await page.locator('.verdict.bad').textContent()) ?? '', /^404 Not Found over HTTP\/1\.1 in /);
      assert.match(
        await text(page, 'section[aria-labelledby="card-response"] dl.facts'),
        /Method HEAD HTTP version 1\.1 Body not asked for \(HEAD\)/,
      );
      assert.equal(
        await text(page, 'section[aria-labelledby="card-tls"] p'),
        'None: the final URL is http://, so nothing was encrypted.',
      );
      assert.deepEqual(
        await page
          .locator('ol.waterfall li[data-phase]')
          .evaluateAll((items) => items.map((item) => item.getAttribute('data-phase'))),
        ['dns', 'tcp', 'first_byte', 'download'],
      );
      await checkPage(watched, `http-404-${width}`);
    }
  });

  it('Ping: the chart grows with each reply, the timeout is marked, then the summary', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/ping?host=127.0.0.1&count=4');
      const { page } = watched;
      const points = page.locator('svg.chart .point');
      const summary = page.locator('#ping-summary');
      // One reply every LINE_GAP_MS: each count is seen while the stream still runs.
      for (const expected of [1, 2]) {
        await waitForCount(points, expected);
        assert.equal(await summary.count(), 0, `no summary yet at ${expected} points`);
        assert.equal(await page.locator('.tool-result tbody tr').count(), expected);
      }
      await waitForCount(page.locator('svg.chart .lost'), 1);
      assert.equal(await points.count(), 2, 'the timeout is no point');
      await waitForCount(points, 3);
      await summary.waitFor();
      assert.equal(
        await text(page, '#ping-summary'),
        'Sent 4 Received 3 Loss 25% Min / avg / max 0.041 ms / 0.047 ms / 0.052 ms',
      );
      assert.equal(await page.locator('svg.chart .lost').count(), 1);
      assert.deepEqual(await page.locator('.tool-result tbody td:nth-child(2)').allTextContents(), [
        'reply',
        'reply',
        'lost',
        'reply',
      ]);
      assert.equal(
        await page.locator('svg.chart').getAttribute('aria-label'),
        'Round-trip times: 3 replies, 1 lost, of 4 requests.',
      );
      assert.equal(
        await page.locator('.code code').textContent(),
        `curl -N '${base}/api/v1/ping?host=127.0.0.1&count=4'`,
      );
      await checkPage(watched, `ping-${width}`);
    }
  });

  it('Ping: a new run stops the one before, which does not speak over it', async () => {
    const watched = await open(1280, '/tools/ping?host=127.0.0.1&count=4');
    const { page } = watched;
    await waitForCount(page.locator('svg.chart .point'), 1);
    await page.getByLabel('Requests', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Ping' }).click();
    await page.waitForURL(`${base}/tools/ping?host=127.0.0.1&count=2`);
    await page.locator('#ping-summary').waitFor();
    assert.equal(await page.locator('.alert.error').count(), 0, 'no error from the aborted run');
    assert.match((await page.locator('svg.chart').getAttribute('aria-label')) ?? '', /of 2 requests\.$/);
    assert.equal(await page.locator('.tool-result tbody tr').count(), 2, 'only the second run’s rows');
    await page.context().close();
  });

  it('Ping: an error event in the stream is shown in words', async () => {
    // (A name that does not resolve is a 400 before any stream, shown as the other 400s are.)
    const watched = await open(375, '/tools/ping?host=127.0.0.9&count=2');
    const { page } = watched;
    const alert = page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^Ping stopped: .*unreachable/i);
    await checkPage(watched, 'ping-error-375');
  });

  /** A local TCP listener that accepts `accepting` connects, then stops listening: later connects are refused. */
  async function listenFor(accepting: number) {
    let accepted = 0;
    const server = net.createServer((socket) => {
      socket.destroy();
      accepted += 1;
      if (accepted === accepting) server.close();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
  }

  it('Ping over TCP: the form shows the port for TCP only; replies without TTL, a refused connect says so', async () => {
    for (const width of WIDTHS) {
      const listener = await listenFor(2);
      try {
        const watched = await open(width, '/tools/ping');
        const { page } = watched;
        const port = page.getByLabel('TCP port');
        assert.equal(await port.isVisible(), false, 'no port for ICMP');
        await page.getByLabel('Host name or IP address').fill('127.0.0.1');
        await page.getByLabel('Requests', { exact: true }).fill('3');
        await page.getByLabel('Protocol').selectOption({ label: 'TCP' });
        assert.equal(await port.isVisible(), true, 'the port once TCP is chosen');
        assert.equal(await port.inputValue(), '443', 'TCP port 443 unless changed');
        await port.fill(String(listener.port));
        await page.getByRole('button', { name: 'Ping' }).click();
        await page.waitForURL(`${base}/tools/ping?host=127.0.0.1&count=3&protocol=tcp&port=${listener.port}`);
        await page.locator('#ping-summary').waitFor({ timeout: 10_000 });
        assert.equal(
          await text(page, '#ping-summary').then((line) => line.split(' Min')[0]),
          'Sent 3 Received 2 Loss 33.33%',
        );
        assert.deepEqual(await page.locator('.tool-result tbody td:nth-child(2)').allTextContents(), [
          'reply',
          'reply',
          'refused',
        ]);
        assert.deepEqual(await page.locator('.tool-result tbody td:nth-child(5)').allTextContents(), ['—', '—']);
        assert.equal(
          await page.locator('.tool-result tbody tr[data-reason="refused"] td:nth-child(3)').textContent(),
          'Refused: the host answered with a reset (nothing listens on the port).',
        );
        assert.match(
          (await page.locator('.tool-result .hint').first().textContent()) ?? '',
          new RegExp(`^Connecting to 127\\.0\\.0\\.1 on TCP port ${listener.port}, 3 times`),
        );
        assert.equal(
          await page.locator('.code code').textContent(),
          `curl -N '${base}/api/v1/ping?host=127.0.0.1&count=3&protocol=tcp&port=${listener.port}'`,
        );
        await checkPage(watched, `ping-tcp-${width}`);
      } finally {
        listener.close();
      }
    }
  });

  it('Ping over TCP: an unreachable host and a connect timing out each say why', async () => {
    // Neither can happen on loopback: the stream is the API's, as it would send them, canned.
    const events = [
      { type: 'start', host: 'example.test', resolved_ip: '192.0.2.10' },
      { type: 'reply', seq: 1, ip: '192.0.2.10', time_ms: 12.5, ttl: null },
      { type: 'timeout', seq: 2, reason: 'unreachable' },
      { type: 'timeout', seq: 3, reason: 'timeout' },
      {
        type: 'done',
        alive: true,
        packets_sent: 3,
        packets_received: 1,
        packet_loss: 66.67,
        min_ms: 12.5,
        avg_ms: 12.5,
        max_ms: 12.5,
        duplicates: 0,
      },
    ];
    const watched = await open(375, '/tools/ping?host=example.test&count=3&protocol=tcp&port=22', (page) =>
      page.route('**/api/v1/ping?*', (route) =>
        route.fulfill({
          contentType: 'text/event-stream',
          body: events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''),
        }),
      ),
    );
    const { page } = watched;
    await page.locator('#ping-summary').waitFor();
    assert.deepEqual(await page.locator('.tool-result tbody td:nth-child(2)').allTextContents(), [
      'reply',
      'unreachable',
      'timeout',
    ]);
    assert.deepEqual(await page.locator('.tool-result tbody tr.lost-row td:nth-child(3)').allTextContents(), [
      'Unreachable: an ICMP error or no route stopped the connect.',
      'Timeout: no answer to the connect within 2 s.',
    ]);
    assert.equal(await page.locator('svg.chart .lost').count(), 2);
    await checkPage(watched, 'ping-tcp-unreachable-375');
  });

  it('Ping: back to ICMP the port is hidden and neither in the URL nor sent', async () => {
    const watched = await open(375, '/tools/ping?host=127.0.0.1&count=2&protocol=tcp&port=7');
    const { page } = watched;
    assert.equal(await page.getByLabel('TCP port').isVisible(), true);
    await page.getByLabel('Protocol').selectOption({ label: 'ICMP' });
    assert.equal(await page.getByLabel('TCP port').isVisible(), false);
    await page.getByRole('button', { name: 'Ping' }).click();
    await page.waitForURL(`${base}/tools/ping?host=127.0.0.1&count=2`);
    await page.locator('#ping-summary').waitFor();
    assert.equal(
      await page.locator('.code code').textContent(),
      `curl -N '${base}/api/v1/ping?host=127.0.0.1&count=2'`,
    );
    await page.context().close();
  });

  it('Traceroute: the hop table fills row by row, then one batch call adds country and network', async () => {
    for (const width of WIDTHS) {
      const batches: unknown[] = [];
      const watched = await open(width, '/tools/traceroute');
      const { page } = watched;
      await page.route('**/api/v1/batch', async (route) => {
        batches.push(route.request().postDataJSON());
        await route.fulfill({ json: BATCH_ANSWER, headers: { 'x-data-attribution': 'Example data, CC BY 4.0' } });
      });
      await page.getByLabel('Host name or IP address').fill('127.0.0.1');
      await page.getByRole('button', { name: 'Trace' }).click();
      await page.waitForURL(`${base}/tools/traceroute?host=127.0.0.1`);
      const rows = page.locator('#hops tbody tr');
      for (const expected of [1, 2, 3]) {
        await waitForCount(rows, expected);
        assert.equal(await page.locator('.verdict').count(), 0, `not done at ${expected} hops`);
      }
      await page.locator('.verdict.good', { hasText: 'Reached in 4 hops.' }).waitFor();
      await page.locator('#hops tbody tr.pending').first().waitFor({ state: 'detached' });
      assert.deepEqual(batches, [['192.0.2.1', '198.51.100.7', '127.0.0.1']], 'one batch, each address once');
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
      );
      assert.deepEqual(cells, [
        ['1', '192.0.2.1', 'gw.example.test', '0.047 ms', 'none (Documentation (TEST-NET-1))', '192.0.2.0/24'],
        ['2', '*', 'no answer', '', '', ''],
        ['3', '198.51.100.7', 'no name', '1.2 ms', 'Netherlands (NL)', 'AS64500 Example Transit'],
        ['4', '127.0.0.1', 'no name', '0.028 ms', 'unknown', 'unknown'],
      ]);
      assert.equal(await rows.nth(2).locator('a').getAttribute('href'), '/lookup/AS64500');
      await page.getByText('Countries and networks: Example data, CC BY 4.0.').waitFor();
      await checkPage(watched, `traceroute-${width}`);
    }
  });

  it('Traceroute: the protocol (and for TCP the port) from the form reach the API and traceroute', async () => {
    /** The arguments of the traceroute the fake spawner started last. */
    const lastTraceArgs = () => fakes.spawned.filter((child) => child.command === 'traceroute').at(-1)?.args ?? [];
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/traceroute', (page) =>
        page.route('**/api/v1/batch', (route) => route.fulfill({ json: BATCH_ANSWER })),
      );
      const { page } = watched;
      const port = page.getByLabel('TCP port');
      assert.deepEqual(
        await page.getByLabel('Protocol').locator('option').allTextContents(),
        ['UDP', 'ICMP', 'TCP'],
        'UDP first, the default',
      );
      assert.equal(await port.isVisible(), false, 'no port for UDP');
      await page.getByLabel('Host name or IP address').fill('127.0.0.1');
      await page.getByLabel('Protocol').selectOption({ label: 'TCP' });
      assert.equal(await port.inputValue(), '80', 'port 80 unless changed, as the API');
      await port.fill('8443');
      await page.getByRole('button', { name: 'Trace' }).click();
      await page.waitForURL(`${base}/tools/traceroute?host=127.0.0.1&protocol=tcp&port=8443`);
      await page.locator('.verdict.good', { hasText: 'Reached in 4 hops.' }).waitFor();
      const tcpArgs = lastTraceArgs();
      assert.deepEqual(tcpArgs.slice(tcpArgs.indexOf('-T'), tcpArgs.indexOf('-T') + 3), ['-T', '-p', '8443']);
      assert.equal(
        await page.locator('.code code').first().textContent(),
        `curl -N '${base}/api/v1/traceroute?host=127.0.0.1&protocol=tcp&port=8443'`,
      );
      assert.match(
        (await page.locator('.tool-result .hint').first().textContent()) ?? '',
        /^Route to 127\.0\.0\.1 with TCP SYNs to port 8443, as the hops answer\.$/,
      );
      await page.locator('#hops tbody tr.pending').first().waitFor({ state: 'detached' });
      await checkPage(watched, `traceroute-tcp-${width}`);
    }
    // ICMP: -I, and no port in the URL or the call even when one was typed for TCP.
    const watched = await open(375, '/tools/traceroute?host=127.0.0.1&protocol=tcp&port=8443', (page) =>
      page.route('**/api/v1/batch', (route) => route.fulfill({ json: BATCH_ANSWER })),
    );
    const { page } = watched;
    await page.locator('.verdict.good').waitFor();
    await page.getByLabel('Protocol').selectOption({ label: 'ICMP' });
    assert.equal(await page.getByLabel('TCP port').isVisible(), false);
    await page.getByRole('button', { name: 'Trace' }).click();
    await page.waitForURL(`${base}/tools/traceroute?host=127.0.0.1&protocol=icmp`);
    await page.locator('.verdict.good').waitFor();
    const icmpArgs = lastTraceArgs();
    assert.ok(icmpArgs.includes('-I') && !icmpArgs.includes('-T') && !icmpArgs.includes('-p'), icmpArgs.join(' '));
    assert.equal(
      await page.locator('.code code').first().textContent(),
      `curl -N '${base}/api/v1/traceroute?host=127.0.0.1&protocol=icmp'`,
    );
    await page.locator('#hops tbody tr.pending').first().waitFor({ state: 'detached' });
    await checkPage(watched, 'traceroute-icmp-375');
  });

  it('Traceroute: the real /api/v1/batch names each special-purpose hop', async () => {
    const watched = await open(1280, '/tools/traceroute?host=127.0.0.1');
    const { page } = watched;
    await page.locator('.verdict.good', { hasText: 'Reached in 4 hops.' }).waitFor();
    await page.locator('#hops tbody tr.pending').first().waitFor({ state: 'detached' });
    const located = await page.locator('#hops tbody tr td.country').allTextContents();
    // Every hop of the fake trace is a special-purpose address: the API says so, and the page shows it.
    assert.deepEqual(located, [
      'none (Documentation (TEST-NET-1))',
      '',
      'none (Documentation (TEST-NET-2))',
      'none (Loopback)',
    ]);
    await checkPage(watched, 'traceroute-real-batch-1280');
  });

  it('Traceroute: when the batch call fails, country and network say "unknown"', async () => {
    const watched = await open(375, '/tools/traceroute?host=127.0.0.1', (page) =>
      page.route('**/api/v1/batch', (route) => route.fulfill({ status: 404, json: { error: 'Not found' } })),
    );
    const { page } = watched;
    await page.locator('.alert.warn', { hasText: 'Countries and networks are unknown' }).waitFor();
    const located = await page.locator('#hops tbody tr td.country').allTextContents();
    assert.deepEqual(located, ['unknown', '', 'unknown', 'unknown']);
    await checkPage(watched, 'traceroute-batch-failed-375', { failedLoads: true });
  });

  it('MTR: one row per hop, updated in place round by round (the silent hop said so), then the outcome', async () => {
    for (const width of WIDTHS) {
      // Hop 1's probe count is recorded in the page at every change of the table (a MutationObserver
      // installed before the page's scripts), so a slow poll from here under load cannot miss a round.
      const watched = await open(width, `/tools/mtr?host=${MTR_TARGET}&count=3`, (page) =>
        page.addInitScript(`
          const seen = (window.hopOneSent = []);
          new MutationObserver(() => {
            const cell = document.querySelector('#mtr-hops tbody tr[data-hop="1"] td:nth-child(5)');
            if (cell && cell.textContent !== seen.at(-1)) seen.push(cell.textContent);
          }).observe(document, { subtree: true, childList: true, characterData: true });
        `),
      );
      const { page } = watched;
      const rows = page.locator('#mtr-hops tbody tr');
      const summary = page.locator('#mtr-summary');
      // Polls the live table until the outcome shows: the rows never outnumber the hops.
      let mostRows = 0;
      const end = Date.now() + 10 * LINE_GAP_MS;
      while ((await summary.count()) === 0) {
        assert.ok(Date.now() < end, 'MTR did not finish');
        mostRows = Math.max(mostRows, await rows.count());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const sentSeen = await page.evaluate('window.hopOneSent');
      assert.deepEqual(sentSeen, ['1', '2', '3'], 'hop 1 seen after each round, before the end');
      assert.ok(mostRows <= 3, `at most one row per hop, saw ${mostRows}`);
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
      );
      assert.deepEqual(cells, [
        ['1', '192.0.2.1', 'gw.example.test', '0%', '3', '0.078 ms', '0.09 ms', '0.076 ms', '0.115 ms', '0.022 ms'],
        ['2', '*', 'no answer', '100%', '3', '', '', '', '', ''],
        ['3', '203.0.113.2', 'no name', '0%', '3', '0.092 ms', '0.098 ms', '0.092 ms', '0.108 ms', '0.009 ms'],
      ]);
      assert.equal(
        await text(page, '#mtr-summary'),
        'Reached 203.0.113.2 in 3 hops. 0% loss at the destination. One hop never answered.',
      );
      assert.equal(await page.locator('#mtr-summary.verdict.good').count(), 1);
      assert.equal(
        await page.locator('.code code').textContent(),
        `curl -N '${base}/api/v1/mtr?host=${MTR_TARGET}&count=3'`,
      );
      assert.equal(await page.locator('nav a[aria-current="page"]').textContent(), 'MTR');
      await checkPage(watched, `mtr-${width}`);
    }
  });
});
