import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAbuseSite } from '../support/abuse-site.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { assertPageHealthy, FAILED_LOAD, screenshot, WIDTHS, watchedPage } from '../support/site-browser.ts';

/**
 * The IP lookup page's "Report abuse to" line: fetched by the page from /api/v1/abuse after load,
 * answered by the registry-shaped RDAP fakes of test/abuse (nothing leaves the machine).
 */
describe('the IP lookup page asks /api/v1/abuse after load', { skip: chromiumSkipReason, timeout: 180_000 }, () => {
  let site: Awaited<ReturnType<typeof startAbuseSite>>;
  const line = '.abuse-contact';

  before(async () => {
    site = await startAbuseSite();
  });
  after(async () => {
    await site?.close();
  });

  it("the registry's contact as a mailto link, and a quiet line when there is none or the registry fails", async () => {
    const { page, problems } = await watchedPage(site.browser, site.base, { width: 1280 });
    await page.goto(`${site.base}/lookup/193.0.6.139`);
    await page.locator(`${line} a`).waitFor();
    assert.equal(await page.locator(line).textContent(), 'Report abuse to abuse@ripe.net (RIPE NCC)');
    assert.equal(await page.locator(`${line} a`).getAttribute('href'), 'mailto:abuse@ripe.net');

    // 41.1.1.1: AFRINIC names no abuse contact (404); 177.1.1.1: LACNIC's server fails (502).
    for (const ip of ['41.1.1.1', '177.1.1.1']) {
      await page.goto(`${site.base}/lookup/${ip}`);
      await page.locator(line, { hasText: 'no abuse contact found' }).waitFor();
      assert.equal(await page.locator(line).textContent(), 'Report abuse to no abuse contact found', ip);
    }
    assert.deepEqual(
      problems.filter((problem) => !problem.startsWith(FAILED_LOAD)),
      [],
    );
    await page.context().close();
  });

  it('never holds the page up: it loads while the registry takes 1.5 s', async () => {
    const { page } = await watchedPage(site.browser, site.base, { width: 375 });
    const started = Date.now();
    await page.goto(`${site.base}/lookup/41.2.2.2`, { waitUntil: 'load' });
    assert.ok(Date.now() - started < 1500, `the page loaded in ${Date.now() - started} ms`);
    assert.equal(await page.locator(line).textContent(), 'Report abuse to (asking the registry…)');
    await page.locator(line, { hasText: 'no abuse contact found' }).waitFor({ timeout: 10_000 });
    await page.context().close();
  });

  it('without JavaScript the line is not shown; a special-purpose address asks no registry', async () => {
    const { page } = await watchedPage(site.browser, site.base, { width: 1280, javaScript: false });
    await page.goto(`${site.base}/lookup/193.0.6.139`);
    assert.equal(await page.locator(line).isVisible(), false);
    await page.context().close();

    const watched = await watchedPage(site.browser, site.base, { width: 1280 });
    const asked: string[] = [];
    watched.page.on('request', (request) => {
      if (request.url().includes('/api/v1/abuse')) asked.push(request.url());
    });
    await watched.page.goto(`${site.base}/lookup/10.0.0.1`, { waitUntil: 'networkidle' });
    assert.equal(await watched.page.locator(line).count(), 0);
    assert.deepEqual(asked, []);
    await watched.page.context().close();
  });

  it('at 375 and 1280 px, light and dark: fits, accessible, nothing from another origin', async () => {
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        const watched = await watchedPage(site.browser, site.base, { width, scheme });
        await watched.page.goto(`${site.base}/lookup/193.0.6.139`);
        await watched.page.locator(`${line} a`).waitFor();
        await assertPageHealthy(watched, `/lookup/193.0.6.139 at ${width} px ${scheme}`);
        await screenshot(watched.page, `i33-abuse-${width}-${scheme}`);
        await watched.page.context().close();
      }
    }
  });
});
