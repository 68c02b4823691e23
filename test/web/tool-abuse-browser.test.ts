import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAbuseSite } from '../support/abuse-site.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { checkToolPage, WIDTHS, watchedPage } from '../support/site-browser.ts';

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

/** /tools/abuse against the registry-shaped RDAP fakes of test/abuse (nothing leaves the machine). */
describe('/tools/abuse: the registry’s abuse contact of an address', {
  skip: chromiumSkipReason,
  timeout: 180_000,
}, () => {
  let site: Awaited<ReturnType<typeof startAbuseSite>>;

  before(async () => {
    site = await startAbuseSite();
  });
  after(async () => {
    await site?.close();
  });

  /** The facts card as term → text. */
  const factsOf = async (page: import('playwright-core').Page) =>
    Object.fromEntries(
      await page
        .locator('#tool-result dl.facts dt')
        .evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])),
    );

  it('RIPE NCC: the e-mail as a mailto link, the contact, the network and the RDAP URL; cached the second time', async () => {
    for (const width of WIDTHS) {
      const watched = await watchedPage(site.browser, site.base, { width });
      const { page } = watched;
      await page.goto(`${site.base}/tools/abuse?ip=193.0.6.139`);
      await page.locator('#tool-result dl.facts').waitFor();
      const answer = await getJson(`${site.base}/api/v1/abuse?ip=193.0.6.139`);
      assert.equal(answer.cached, true, 'the page asked first');
      assert.equal(answer.email, 'abuse@ripe.net');
      assert.deepEqual(await factsOf(page), {
        'E-mail': answer.email,
        Name: answer.name ?? 'unknown',
        Handle: answer.handle ?? 'unknown',
        Registry: 'RIPE NCC',
        Network: answer.network.range ?? 'unknown',
        'Network handle': answer.network.handle ?? 'unknown',
        'Network name': answer.network.name ?? 'unknown',
        'RDAP answer': answer.source,
      });
      assert.equal(
        await page.locator('#tool-result dd a[href^="mailto:"]').getAttribute('href'),
        'mailto:abuse@ripe.net',
      );
      assert.equal(await page.locator('#tool-result dd a.mono').getAttribute('href'), answer.source);
      // The first visit asked the registry; the second is served from the cache, and says so.
      const cached = (await page.locator('#tool-result .hint').textContent()) ?? '';
      assert.match(cached, width === WIDTHS[0] ? /^Asked .* UTC\.$/ : /\(from the service’s cache\)\.$/);
      await checkToolPage(watched, `i33-tool-abuse-ripe-${width}`);
    }
  });

  it('404 and 502 are shown as the other tools show errors, naming the registry', async () => {
    for (const [ip, status, expected] of [
      ['41.1.1.1', 404, /^The API answered 404: .*AFRINIC/],
      ['177.1.1.1', 502, /^The lookup failed upstream: .*LACNIC/],
    ] as const) {
      assert.equal((await fetch(`${site.base}/api/v1/abuse?ip=${ip}`)).status, status);
      const watched = await watchedPage(site.browser, site.base, { width: 375 });
      await watched.page.goto(`${site.base}/tools/abuse?ip=${ip}`);
      const alert = watched.page.locator('.alert.error');
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', expected, ip);
      await checkToolPage(watched, `i33-tool-abuse-${status}-375`, { failedLoads: true });
    }
  });
});
