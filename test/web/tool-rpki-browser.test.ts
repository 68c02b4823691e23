import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BADGE_CLASS, LONG } from '../../src/web/site/rpki-view.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { startRpkiSite } from '../support/rpki-site.ts';
import { checkToolPage, WIDTHS, watchedPage } from '../support/site-browser.ts';

/** Each case's state and reason as /api/v1/json would say them, and the VRPs in each group (matched, other AS, too short). */
const CASES = [
  { name: 'valid', prefix: '1.1.1.0/24', asn: 'AS13335', status: 'valid', reason: undefined, groups: [1, 0, 0] },
  { name: 'invalid-as', prefix: '1.0.0.0/24', asn: 'AS13335', status: 'invalid', reason: 'asn', groups: [0, 1, 0] },
  {
    name: 'invalid-length',
    prefix: '8.8.8.0/24',
    asn: '15169',
    status: 'invalid',
    reason: 'length',
    groups: [0, 0, 1],
  },
  {
    name: 'not-found',
    prefix: '9.9.9.0/24',
    asn: 'AS19281',
    status: 'not-found',
    reason: undefined,
    groups: [0, 0, 0],
  },
] as const;

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

describe('/tools/rpki: a prefix and an origin validated against the loaded VRPs', {
  skip: chromiumSkipReason,
  timeout: 240_000,
}, () => {
  let site: Awaited<ReturnType<typeof startRpkiSite>>;

  before(async () => {
    site = await startRpkiSite('rpki-tool');
  });
  after(async () => {
    await site?.close();
  });

  it('before any VRP set is installed, the 503 is said plainly', async () => {
    assert.equal(site.store.current?.rpki, undefined);
    const watched = await watchedPage(site.browser, site.base, { width: 375 });
    await watched.page.goto(`${site.base}/tools/rpki?prefix=1.1.1.0%2F24&asn=AS13335`);
    const alert = watched.page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^The API answered 503: .*VRP/i);
    await checkToolPage(watched, 'i33-tool-rpki-503-375', { failedLoads: true });
  });

  it("each state in the lookup pages' words and badge, Routinator's reason, the VRP groups, the set's age", async () => {
    await site.install();
    for (const width of WIDTHS) {
      for (const { name, prefix, asn, status, reason, groups } of CASES) {
        const query = `prefix=${encodeURIComponent(prefix)}&asn=${asn}`;
        const answer = await getJson(`${site.base}/api/v1/rpki?${query}`);
        const watched = await watchedPage(site.browser, site.base, { width });
        const { page } = watched;
        await page.goto(`${site.base}/tools/rpki?${query}`);
        const badge = page.locator('#tool-result .badge.rpki');
        await badge.waitFor();
        assert.equal(await badge.textContent(), `${LONG[status]}${reason ? `: ${LONG[reason]}` : ''}`, name);
        assert.equal(await badge.getAttribute('class'), `badge rpki ${BADGE_CLASS[status]}`, name);
        assert.ok(
          await page.getByText(answer.validated_route.validity.description, { exact: true }).isVisible(),
          `${name}: Routinator's reason`,
        );
        const counts = [];
        for (const key of ['matched', 'unmatched_as', 'unmatched_length']) {
          const rows = page.locator(`.vrp-group.${key} tbody tr`);
          counts.push(await rows.count());
          for (const vrp of answer.validated_route.validity.VRPs[key]) {
            const row = rows.filter({ hasText: vrp.prefix });
            assert.match((await row.textContent()) ?? '', new RegExp(`/${vrp.max_length}${vrp.asn}$`), name);
            assert.equal(await row.locator('a').getAttribute('href'), `/lookup/${vrp.asn}`);
          }
        }
        assert.deepEqual(counts, groups, `${name}: matched, other AS, too short`);
        assert.match(
          (await page.locator('.rpki-age').textContent()) ?? '',
          /^VRPs generated 4\d min ago by the validator \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/,
        );
        await checkToolPage(watched, `i33-tool-rpki-${name}-${width}`);
      }
    }
  });

  it("the IP lookup page's route origin links here, the form filled and the validation run", async () => {
    const watched = await watchedPage(site.browser, site.base, { width: 375 });
    const { page } = watched;
    await page.goto(`${site.base}/lookup/8.8.8.8`);
    const { route, asn } = (await getJson(`${site.base}/api/v1/json/8.8.8.8`)).network;
    const link = page.locator('a.rpki-tool');
    assert.equal(await link.getAttribute('href'), `/tools/rpki?${new URLSearchParams({ prefix: route, asn })}`);
    await link.click();
    await page.locator('#tool-result .badge.rpki').waitFor();
    assert.equal(await page.getByLabel('Prefix').inputValue(), route);
    assert.equal(await page.getByLabel('Origin AS').inputValue(), asn);
    assert.equal(await page.locator('#tool-result .badge.rpki').textContent(), `${LONG.invalid}: ${LONG.length}`);
    await page.context().close();
  });

  it('bad input: the 400 names the parameter', async () => {
    const watched = await watchedPage(site.browser, site.base, { width: 1280 });
    await watched.page.goto(`${site.base}/tools/rpki?prefix=1.1.1.1%2F24&asn=AS13335`);
    const alert = watched.page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^The API cannot use this input: .*'prefix'.*host bits/);
    await checkToolPage(watched, 'i33-tool-rpki-400-1280', { failedLoads: true });
  });
});
