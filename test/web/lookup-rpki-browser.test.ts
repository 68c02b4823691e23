import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason } from '../support/chromium.ts';
import { GENERATED, startRpkiSite, VRPS } from '../support/rpki-site.ts';
import { assertPageHealthy, screenshot, settleAbuseContact, WIDTHS, watchedPage } from '../support/site-browser.ts';

/** What each address's page must say, as /api/v1/json's `network.rpki` has it (9.9.9.0/24 has no VRP). */
const CASES = [
  { ip: '1.1.1.1', status: 'valid', badge: 'RPKI valid', colour: 'good', vrp: /1\.1\.1\.0\/24 max \/24 AS13335/ },
  {
    ip: '1.0.0.1',
    status: 'invalid',
    badge: 'RPKI invalid: origin AS not authorised',
    colour: 'bad',
    vrp: /1\.0\.0\.0\/24 max \/24 AS64496/,
  },
  {
    ip: '8.8.8.8',
    status: 'invalid',
    badge: 'RPKI invalid: more specific than the ROA allows',
    colour: 'bad',
    vrp: /8\.8\.0\.0\/16 max \/23 AS15169/,
  },
  { ip: '9.9.9.9', status: 'not-found', badge: 'No ROA', colour: 'neutral', vrp: undefined },
] as const;

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();

/** "VRPs generated 40 min ago by the validator", allowing for the minute the test may take. */
function assertAgeNote(note: string): void {
  const minutes = Number(
    /^VRPs generated (\d+) min ago by the validator \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/.exec(note)?.[1],
  );
  const expected = (Date.now() - GENERATED) / 60_000;
  assert.ok(minutes >= 40 && minutes <= expected, `the age of the VRP set: ${note}`);
}

describe('RPKI on the lookup pages: a badge, the covering VRPs, the counts of an AS, the age of the set', {
  skip: chromiumSkipReason,
  timeout: 240_000,
}, () => {
  let site: Awaited<ReturnType<typeof startRpkiSite>>;
  let base: string;
  let browser: Browser;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below
  const api = async (url: string): Promise<any> => (await fetch(`${base}${url}`)).json();

  before(async () => {
    site = await startRpkiSite('rpki-pages');
    base = site.base;
    await site.install();
    assert.equal(site.store.current?.rpki?.size, 4, 'the set is in use');
    browser = site.browser;
  });
  after(async () => {
    await site?.close();
  });

  it('an address: its state in words beside the route, its covering VRPs, the age of the set', async () => {
    const { page, problems } = await watchedPage(browser, base, { width: 1280, javaScript: false });
    for (const { ip, status, badge, colour, vrp } of CASES) {
      const rpki = (await api(`/api/v1/json/${ip}`)).network.rpki;
      assert.equal(rpki.status, status, `${ip}: the API's state`);
      await page.goto(`${base}/lookup/${ip}`);
      assert.equal(await page.locator('.badge.rpki').count(), 1, ip);
      assert.equal(await text(page, '.badge.rpki'), badge, ip);
      assert.equal(await page.locator('.badge.rpki').getAttribute('class'), `badge rpki ${colour}`, ip);
      const vrps = await page.locator('ul.vrps li').allTextContents();
      assert.equal(vrps.length, rpki.vrps.length, `${ip}: every covering VRP`);
      if (vrp !== undefined) {
        assert.match(vrps[0] ?? '', vrp, ip);
        const asn = rpki.vrps[0].asn;
        assert.equal(await page.locator('ul.vrps a').first().getAttribute('href'), `/lookup/${asn}`);
      }
      assertAgeNote(await text(page, '.rpki-age'));
    }
    // The home page's own-address view shows the same, for the visitor's address.
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': '1.1.1.1' });
    await page.goto(`${base}/`);
    assert.equal(await text(page, '#my-ip'), '1.1.1.1');
    assert.equal(await text(page, '.badge.rpki'), 'RPKI valid');
    assertAgeNote(await text(page, '.rpki-age'));
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it("an AS: the counts are the API's summary, and each listed prefix has its state", async () => {
    const answer = await api('/api/v1/asn/AS13335');
    const { valid, invalid, notFound } = answer.rpki.summary;
    assert.ok(valid > 0 && invalid > 0 && notFound > 0, JSON.stringify(answer.rpki.summary));
    const { page, problems } = await watchedPage(browser, base, { width: 1280, javaScript: false });
    await page.goto(`${base}/lookup/AS13335`);
    const counts = await page.locator('.rpki-counts li').allTextContents();
    const grouped = (n: number) => n.toLocaleString('en-GB');
    assert.deepEqual(counts, [
      `${grouped(valid)} RPKI valid`,
      `${grouped(invalid)} RPKI invalid`,
      `${grouped(notFound)} no ROA`,
    ]);
    assert.equal(await page.locator('svg.rpki-bar rect').count(), 3, 'the bar has a part for each state');
    const expected = new Map<string, string>(
      answer.rpki.prefixes.map((entry: { prefix: string; status: string; reason?: string }) => [
        entry.prefix,
        { valid: 'valid', invalid: 'invalid', 'not-found': 'no ROA' }[entry.status] +
          (entry.reason === 'asn' ? ': origin AS' : entry.reason === 'length' ? ': too specific' : ''),
      ]),
    );
    const listed = await page
      .locator('ul.prefixes li')
      .evaluateAll((items) =>
        items.map((item) => [
          item.querySelector('a')?.textContent ?? '',
          item.querySelector('.badge')?.textContent ?? '',
        ]),
      );
    assert.equal(listed.length, Math.min(500, answer.prefixCount.ipv4) + Math.min(500, answer.prefixCount.ipv6));
    for (const [prefix, badge] of listed) assert.equal(badge, expected.get(prefix ?? ''), prefix);
    assert.ok(listed.some(([prefix, badge]) => prefix === '1.0.0.0/24' && badge === 'invalid: origin AS'));
    assertAgeNote(await text(page, '.rpki-age'));
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it('at 375 and 1280 px, light and dark: fits, accessible, nothing from another origin', async () => {
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        // The home page shows the visitor's own address: 1.1.1.1 here, for every page of this context.
        const watched = await watchedPage(browser, base, { width, scheme, headers: { 'x-forwarded-for': '1.1.1.1' } });
        for (const [name, url] of [
          ['home', '/'],
          ['valid', '/lookup/1.1.1.1'],
          ['invalid', '/lookup/8.8.8.8'],
          ['asn', '/lookup/AS13335'],
        ] as const) {
          await watched.page.goto(`${base}${url}`, { waitUntil: 'networkidle' });
          // An address's lookup page asks for its abuse contact, which no registry gives here.
          if (name === 'valid' || name === 'invalid') await settleAbuseContact(watched);
          await assertPageHealthy(watched, `${url} at ${width} px ${scheme}`);
          await screenshot(watched.page, `i33-rpki-${name}-${width}-${scheme}`);
        }
        await watched.page.context().close();
      }
    }
  });

  it("an export without the validator's time: the page says when the set was installed, and that the export does not say", async () => {
    const { metadata: _, ...withoutTime } = JSON.parse(VRPS);
    site.server.set('/vrps.json', { body: JSON.stringify(withoutTime) });
    const installing = Date.now();
    await site.install(Number.NaN);
    const { page } = await watchedPage(browser, base, { width: 1280, javaScript: false });
    await page.goto(`${base}/lookup/1.1.1.1`);
    assert.equal(await text(page, '.badge.rpki'), 'RPKI valid');
    const note = await text(page, '.rpki-age');
    assert.match(
      note,
      /^VRPs installed under a minute ago \(.* UTC\); the validator's export does not say when it made them\.$/,
    );
    const at = Date.parse((await page.locator('.rpki-age time').getAttribute('datetime')) ?? '');
    assert.ok(at >= installing - 1000 && at <= Date.now(), `installed at ${new Date(at).toISOString()}`);
    await page.context().close();
  });
});
