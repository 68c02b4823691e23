import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildTestApp } from '../support/app.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { freePort } from '../support/free-port.ts';
import { mmdbPath } from '../support/mmdb-fixtures.ts';
import {
  assertPageHealthy,
  screenshot,
  settleAbuseContact,
  startSite,
  WIDTHS,
  watchedPage,
} from '../support/site-browser.ts';

const skip = chromiumSkipReason;
// MaxMind's test City database knows this address (London, GB); the ASN comes from the embedded data.
const VISITOR = '81.2.69.142';
const CITY_TEST_DB = { GEOIP_CITY_DB: mmdbPath('GeoIP2-City-Test') };

test("home page: the visitor's facts are on the page with JavaScript off, as /api/v1/json gives them", {
  skip,
}, async () => {
  const site = await startSite(CITY_TEST_DB);
  try {
    const api = (await site.app.inject({ url: '/api/v1/json', remoteAddress: VISITOR })).json();
    assert.equal(api.location.city, 'London');
    const { page, problems } = await watchedPage(site.browser, site.base, {
      width: 1280,
      javaScript: false,
      headers: { 'x-forwarded-for': VISITOR },
    });
    const response = await page.goto(`${site.base}/`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'(;|$)/);
    assert.equal(await page.locator('#my-ip').textContent(), VISITOR);
    const text = (await page.locator('main').textContent()) ?? '';
    for (const value of [
      api.location.country,
      api.location.city,
      api.location.timezone,
      api.network.asn,
      api.network.route,
    ]) {
      assert.ok(text.includes(value), `the page shows ${value}`);
    }
    // The map's marker sits where the answer's coordinates put it.
    assert.equal(await page.locator('svg.map circle.pin').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test('home page at 375 and 1280 px, light and dark: fits, accessible, nothing from another origin', {
  skip,
}, async () => {
  const site = await startSite(CITY_TEST_DB);
  try {
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        const watched = await watchedPage(site.browser, site.base, {
          width,
          scheme,
          headers: { 'x-forwarded-for': VISITOR },
        });
        await watched.page.goto(`${site.base}/`, { waitUntil: 'networkidle' });
        await assertPageHealthy(watched, `/ at ${width} px ${scheme}`);
        await screenshot(watched.page, `home-${width}-${scheme}`);
        await watched.page.context().close();
      }
    }
  } finally {
    await site.close();
  }
});

test('home page weight: everything it loads, map included, under 200 KB as transferred', { skip }, async () => {
  const site = await startSite(CITY_TEST_DB);
  try {
    const { page } = await watchedPage(site.browser, site.base, {
      width: 1280,
      headers: { 'x-forwarded-for': VISITOR },
    });
    await page.goto(`${site.base}/`, { waitUntil: 'networkidle' });
    // The browser's own count of bytes on the wire (compressed, headers included) for the page and all it loaded.
    const bytes = await page.evaluate<number>(
      `[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
        .reduce((sum, entry) => sum + entry.transferSize, 0)`,
    );
    const loaded = await page.evaluate<string[]>("performance.getEntriesByType('resource').map((entry) => entry.name)");
    assert.ok(
      loaded.some((url) => url.includes('/assets/world.svg')),
      'the map was loaded',
    );
    assert.ok(bytes > 10_000 && bytes < 200_000, `transferred ${bytes} bytes`);
  } finally {
    await site.close();
  }
});

test('both address families: the page asks PUBLIC_IPV4_URL and PUBLIC_IPV6_URL, and says "none" for one that fails', {
  skip,
}, async () => {
  for (const [ipv6Works, expected] of [
    [true, '::1'],
    [false, 'none'],
  ] as const) {
    const port = await freePort();
    const closedPort = await freePort();
    // Listening on :: answers both families on loopback. Names, as a deployment has them (a CSP
    // source cannot be an IPv6 literal), which Chromium maps to 127.0.0.1 and ::1 itself; the
    // failing IPv6 URL is a closed port.
    const v4 = `http://v4.netinfo.test:${port}`;
    const v6 = `http://v6.netinfo.test:${ipv6Works ? port : closedPort}`;
    const site = await startSite(
      { PUBLIC_IPV4_URL: v4, PUBLIC_IPV6_URL: v6 },
      {},
      {
        host: '::',
        port,
        browserArgs: ['--host-resolver-rules=MAP v4.netinfo.test 127.0.0.1, MAP v6.netinfo.test [::1]'],
      },
    );
    try {
      const watched = await watchedPage(site.browser, site.base, {
        width: 375,
        allowedOrigins: [new URL(v4).origin, new URL(v6).origin],
      });
      const response = await watched.page.goto(`${site.base}/`);
      assert.match(response?.headers()['content-security-policy'] ?? '', new RegExp(`connect-src 'self' ${v4} ${v6};`));
      const v4Box = watched.page.locator('[data-family="4"] .address');
      const v6Box = watched.page.locator('[data-family="6"] .address');
      await v6Box.filter({ hasText: expected }).waitFor({ timeout: 10_000 });
      assert.equal(await v4Box.textContent(), '127.0.0.1');
      assert.equal(await v6Box.textContent(), expected);
      // A failed fetch is the one expected problem of the second run.
      assert.deepEqual(
        watched.problems.filter((problem) => !problem.includes('ERR_CONNECTION_REFUSED')),
        [],
      );
      await screenshot(watched.page, `home-families-${ipv6Works ? 'both' : 'ipv4-only'}-375`);
    } finally {
      await site.close();
    }
  }
});

test('lookups: an address and an AS as pages, from /api/v1/json/{ip} and /api/v1/asn/{asn}', { skip }, async () => {
  const site = await startSite(CITY_TEST_DB);
  try {
    const asn = (await site.app.inject({ url: '/api/v1/asn/AS20712' })).json();
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        const watched = await watchedPage(site.browser, site.base, { width, scheme });
        // The search box leads to the lookup page.
        await watched.page.goto(`${site.base}/`);
        await watched.page.fill('#site-search', ' as20712 ');
        await watched.page.press('#site-search', 'Enter');
        await watched.page.waitForURL(`${site.base}/lookup/as20712`);
        assert.equal(await watched.page.locator('h1').textContent(), `AS20712 ${asn.name}`);
        const text = (await watched.page.locator('main').textContent()) ?? '';
        assert.ok(text.includes(`${asn.prefixCount.ipv4} IPv4 prefixes`), 'the IPv4 prefix count');
        assert.ok(text.includes(asn.prefixes.ipv6[0]), 'the IPv6 prefixes listed');
        // No VRP set is loaded here: no RPKI state, counts or age, and the page says why.
        assert.equal(asn.rpki, undefined);
        assert.equal(await watched.page.locator('.badge.rpki, .rpki-counts, .rpki-age').count(), 0);
        assert.ok(text.includes('RPKIno VRP set loaded'), 'the AS page says no VRP set is loaded');
        await assertPageHealthy(watched, `/lookup/as20712 at ${width} px ${scheme}`);
        await screenshot(watched.page, `lookup-asn-${width}-${scheme}`);

        await watched.page.goto(`${site.base}/lookup/${VISITOR}`);
        await settleAbuseContact(watched);
        assert.equal(await watched.page.locator('h1').textContent(), VISITOR);
        const ipText = (await watched.page.locator('main').textContent()) ?? '';
        assert.ok(ipText.includes('London'));
        assert.equal(await watched.page.locator('.badge.rpki, .rpki-age').count(), 0);
        assert.ok(ipText.includes('Route originRPKI: no VRP set loaded'), 'the address page says no VRP set is loaded');
        await assertPageHealthy(watched, `/lookup/${VISITOR} at ${width} px ${scheme}`);
        await screenshot(watched.page, `lookup-ip-${width}-${scheme}`);
        await watched.page.context().close();
      }
    }
  } finally {
    await site.close();
  }
});

test('lookups that fail are pages that say why, with the API status', async () => {
  const app = await buildTestApp();
  try {
    const html = { accept: 'text/html' };
    const moved = await app.inject({ url: '/lookup?q=%208.8.8.8%20', headers: html });
    assert.equal(moved.statusCode, 303);
    assert.equal(moved.headers.location, '/lookup/8.8.8.8');
    assert.equal((await app.inject({ url: '/lookup?q=', headers: html })).headers.location, '/');

    const name = await app.inject({ url: '/lookup/example.com', headers: html });
    assert.equal(name.statusCode, 400);
    assert.match(name.body, /“example\.com” is not an IP address or an AS number/);
    assert.match(name.body, /href="\/tools\/dns\?host=example\.com&amp;type=A"/);

    const unknown = await app.inject({ url: '/lookup/AS999999', headers: html });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /The loaded data knows no AS999999/);
    assert.match(unknown.headers['content-type'] as string, /text\/html/);
  } finally {
    await app.close();
  }
});

/** The URL "Try it out" sends for an operation whose form is left as Swagger UI fills it. */
async function sentByUntouchedForm(page: Page, operation: string): Promise<URL> {
  const block = page.locator(`#operations-${operation}`);
  await block.locator('.opblock-summary').click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  const sent = new Promise<string>((resolve) => {
    void page.route('**/api/v1/dns?**', (route) => {
      resolve(route.request().url());
      return route.fulfill({ json: {} });
    });
  });
  await block.getByRole('button', { name: 'Execute' }).click();
  return new URL(await sent);
}

test('/docs: the API reference renders from this instance, and "Try it out" calls it', { skip }, async () => {
  const site = await startSite();
  try {
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        const watched = await watchedPage(site.browser, site.base, { width, scheme });
        await watched.page.goto(`${site.base}/docs`);
        await watched.page.locator('.opblock').first().waitFor();
        const operations = await watched.page.locator('.opblock-summary-path').allTextContents();
        assert.ok(operations.includes('/api/v1/json'), 'the operations of the OpenAPI document are listed');
        await assertPageHealthy(watched, `/docs at ${width} px ${scheme}`);
        await screenshot(watched.page, `docs-${width}-${scheme}`);
        if (width === 1280 && scheme === 'light') {
          // Try it out: GET /api/v1/ipv6 from the page, to this origin.
          await watched.page.locator('#operations-ip-getIpFamily .opblock-summary').click();
          await watched.page.getByRole('button', { name: 'Try it out' }).click();
          const answered = watched.page.waitForResponse((response) => response.url().endsWith('/api/v1/ipv6'));
          await watched.page.getByRole('button', { name: 'Execute' }).click();
          const response = await answered;
          assert.equal(response.status(), 200);
          assert.equal(new URL(response.url()).origin, site.base);
          // Issue 28: an untouched form sends only the required parameters (it sent dnssec=true, the
          // optional parameter's example, which Swagger UI fills in).
          const sent = await sentByUntouchedForm(watched.page, 'dns-getDnsRecords');
          assert.deepEqual([...sent.searchParams.keys()], ['host', 'record_type']);
          assert.equal(sent.searchParams.get('record_type'), 'MX', 'the required enum starts at its example');
        }
        await watched.page.context().close();
      }
    }
  } finally {
    await site.close();
  }
});
