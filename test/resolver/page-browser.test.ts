import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumSkipReason } from '../support/chromium.ts';
import { type ListeningProcess, startListeningProcess } from '../support/listening-process.ts';
import { createVisitorNamespace, netnsSkipReason, type VisitorNamespace } from '../support/resolver-netns.ts';
import { startZoneResolver, type ZoneResolver } from '../support/resolver-test-unbound.ts';
import * as site from '../support/site-browser.ts';
import { findUnbound } from '../support/validating-resolver.ts';
import { startZoneApp, ZONE, type ZoneApp } from './zone-app.ts';

/**
 * /tools/resolver in Chromium. Off (no zone): the page says what the operator must set, and the
 * port check shows the API's answer. On: Chromium runs in a network namespace whose only name
 * server is a validating Unbound on the host end of its veth, which asks the zone's listener; the
 * app listens on that host end and the zone's names point there. The page's sentence must name the
 * resolver and say that DNSSEC is validated (the broken name never resolved).
 */

/** Text as laid out, waiting until `until` holds for it (a live page's CSP forbids waitForFunction's eval). */
async function textWhen(page: Page, selector: string, until: (text: string) => boolean, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = (await page.locator(selector).textContent()) ?? '';
    if (until(text)) return text;
    assert.ok(Date.now() < end, `${selector} still "${text}" after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The site's checks but the `expected` problems, axe in both schemes, screenshots; then the page closes. */
async function checkPage(watched: site.WatchedPage, name: string, expected: (problem: string) => boolean) {
  const { page, problems } = watched;
  problems.splice(0, problems.length, ...problems.filter((problem) => !expected(problem)));
  await site.assertPageHealthy(watched, name);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await site.seriousViolations(page), [], `${name} ${scheme}`);
    await site.screenshot(page, `${name}-${scheme}`);
  }
  await page.context().close();
}

describe('/tools/resolver without a zone', { skip: chromiumSkipReason, timeout: 120_000 }, () => {
  let running: Awaited<ReturnType<typeof site.startSite>>;
  before(async () => {
    running = await site.startSite();
  });
  after(async () => {
    await running?.close();
  });

  it('says the operator must set RESOLVER_TEST_ZONE, shows the address, and checks a port', async () => {
    const expected = await running.app.inject({ url: '/api/v1/port/22', remoteAddress: '127.0.0.1' });
    const body = expected.json();
    for (const width of site.WIDTHS) {
      const watched = await site.watchedPage(running.browser, running.base, { width });
      const { page } = watched;
      await page.goto(`${running.base}/tools/resolver?port=22`);
      assert.match((await page.locator('[data-resolver-zone] .alert').textContent()) ?? '', /RESOLVER_TEST_ZONE/);
      assert.equal(await page.locator('#my-ip').textContent(), '127.0.0.1');
      assert.equal(await page.locator('nav a[aria-current="page"]').textContent(), 'Resolver');
      // Whatever /api/v1/port answers here (its 200 or its error), the page says it.
      const shown = await textWhen(page, '#port-result', (text) => text !== '' && !text.startsWith('Connecting'));
      assert.equal(shown, expected.statusCode === 200 ? shown : body.error);
      if (expected.statusCode === 200) assert.match(shown, /^Port 22 of /);
      // 4xx answers of the port check are expected console lines: anything else is a problem.
      await checkPage(watched, `resolver-off-${width}`, (problem) => /status of 4\d\d/.test(problem));
    }
  });
});

const missing = [
  netnsSkipReason(),
  chromiumSkipReason,
  findUnbound() ? false : 'unbound (apt package unbound) not installed',
].filter((reason): reason is string => reason !== false);
const skip = missing.length > 0 ? `resolver page in a network namespace skipped: ${missing.join('; ')}` : false;
if (skip) console.log(`# ${skip}`);

describe('/tools/resolver from a visitor network behind a validating Unbound', { skip, timeout: 180_000 }, () => {
  let visitor: VisitorNamespace;
  let zone: ZoneApp;
  let unbound: ZoneResolver;
  let browser: Browser;
  let base: string;
  let server: ListeningProcess;
  before(async () => {
    visitor = await createVisitorNamespace(CHROMIUM);
    server = await startListeningProcess(
      'ip',
      ['netns', 'exec', visitor.name, process.execPath, 'test/port/listener-in-netns.ts', visitor.visitorAddress],
      {},
    );
    // The visitor's network is private: the port check may reach it only where the operator allows.
    zone = await startZoneApp({ RESOLVER_TEST_ADDRESSES: visitor.hostAddress, ALLOW_PRIVATE_TARGETS: '10.231.0.0/16' });
    await zone.app.listen({ host: visitor.hostAddress, port: 0 });
    base = `http://${visitor.hostAddress}:${(zone.app.server.address() as AddressInfo).port}`;
    // Port 53: resolv.conf names no port.
    unbound = await startZoneResolver(
      ZONE,
      { host: '127.0.0.1', port: zone.dnsPort },
      { interface: visitor.hostAddress, port: 53 },
    );
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: visitor.chromium, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    server?.child.kill();
    await browser?.close();
    await unbound?.stop();
    await zone?.app.close();
    await visitor?.remove();
  });

  it('names the resolver, its subnet policy, and that it validates DNSSEC', async () => {
    for (const width of site.WIDTHS) {
      const watched = await site.watchedPage(browser, base, { width });
      const { page } = watched;
      await page.goto(`${base}/tools/resolver`);
      const sentence = await textWhen(page, '#resolver-summary', (text) => text.startsWith('Your DNS queries'));
      assert.equal(
        sentence,
        'Your DNS queries are answered by 1 resolver (127.0.0.1). None of them tells name servers your subnet (no ECS). They validate DNSSEC: the name with broken signatures did not resolve.',
      );
      assert.deepEqual(await page.locator('#resolver-result td').allTextContents(), [
        '127.0.0.1',
        'unknown',
        'unknown',
        'none',
        'none',
      ]);
      assert.match(
        (await page.locator('#resolver-result pre').textContent()) ?? '',
        /^curl http:\/\/10\.231\.\d+\.1:\d+\/api\/v1\/resolver\/[a-z2-7]{24}$/,
      );
      // The test names are other origins by design, and the broken one fails to load.
      await checkPage(
        watched,
        `resolver-on-${width}`,
        (problem) => problem.includes(`.${ZONE}:`) || problem.includes('ERR_NAME_NOT_RESOLVED'),
      );
    }
  });

  it("checks a port of the visitor's own: reachable where a server listens, refused where none does", async () => {
    const open = new URL(server.url).port;
    const { page } = await site.watchedPage(browser, base, { width: 1280 });
    await page.goto(`${base}/tools/resolver?port=${open}`);
    const reachable = await textWhen(page, '#port-result', (text) => text.startsWith('Port '));
    assert.match(
      reachable,
      new RegExp(
        `^Port ${open} of ${visitor.visitorAddress.replaceAll('.', '\\.')} is reachable \\(connected in [\\d.]+ ms\\)\\.$`,
      ),
    );
    await page.fill('#port-number', '9');
    await page.click('#port-form button');
    const refused = await textWhen(page, '#port-result', (text) => text.startsWith('Port 9 '));
    assert.equal(
      refused,
      `Port 9 of ${visitor.visitorAddress} is refused: the address answered, but nothing listens on that port (or a firewall rejects it).`,
    );
    assert.equal(new URL(page.url()).search, '?port=9', 'the URL holds the port checked');
    await page.context().close();
  });
});
