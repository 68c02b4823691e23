import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, manualClock } from '../support/app.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { assertPageHealthy, screenshot, startSite, WIDTHS, watchedPage } from '../support/site-browser.ts';

// Issue 28, items 2 and 3: a browser on an unknown path got the API's JSON 404; /favicon.ico and
// /robots.txt were 404s counted against the visitor's limit; the home page at 429 hid the address.

const BROWSER = { 'user-agent': 'Mozilla/5.0', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const CURL = { 'user-agent': 'curl/8.5.0', accept: '*/*' };
const CLIENT = '198.51.100.7';

test('an unknown path: an HTML 404 in the site layout with a search box for browsers, JSON for API clients', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=100/1000' });
  try {
    for (const url of ['/no-such-page', '/api/v1', '/tools/nope?x=1']) {
      const page = await app.inject({ url, remoteAddress: CLIENT, headers: BROWSER });
      assert.equal(page.statusCode, 404, url);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', url);
      assert.match(String(page.headers['content-security-policy']), /default-src 'self'/, url);
      assert.ok(page.headers['x-ratelimit-limit'], `${url}: counted like any unknown path`);
      assert.match(page.body, /<header class="site-header">/, `${url}: the site's layout`);
      assert.match(page.body, /<h1>Page not found<\/h1>/, url);
      const main = page.body.slice(page.body.indexOf('<main'), page.body.indexOf('</main>'));
      assert.match(main, /<form class="tool" action="\/lookup" method="get" role="search">/, `${url}: a search box`);
      assert.match(main, /<input id="not-found-search" name="q" type="search"/, url);
      assert.match(main, new RegExp(`<code>${url.split('?')[0]?.replace(/\//g, '\\/')}</code>`), url);
    }
    // The path is shown as text, never as markup.
    const hostile = await app.inject({ url: '/%3Cscript%3Ealert(1)%3C/script%3E', headers: BROWSER });
    assert.equal(hostile.statusCode, 404);
    assert.match(hostile.body, /<code>\/&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/code>/);
    assert.doesNotMatch(hostile.body, /<script>alert/);

    for (const headers of [CURL, { accept: 'application/json' }, {}]) {
      const api = await app.inject({ url: '/no-such-page', headers });
      assert.equal(api.statusCode, 404);
      assert.equal(api.headers['content-type'], 'application/json; charset=utf-8');
      assert.deepEqual(api.json(), {
        error: 'No endpoint GET /no-such-page. The API is described at /api/v1/openapi.json.',
      });
    }
    // Only a page read is answered with a page; other methods keep the catalogue's answers.
    const posted = await app.inject({ method: 'POST', url: '/no-such-page', headers: BROWSER });
    assert.equal(posted.statusCode, 404);
    assert.equal(posted.headers['content-type'], 'application/json; charset=utf-8');
  } finally {
    await app.close();
  }
});

test('/favicon.ico and /robots.txt exist, from this service, and do not count, even at the limit', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=1/1000' });
  try {
    assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT })).statusCode, 200);
    assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT })).statusCode, 429, 'spent');
    const icon = await app.inject({ url: '/favicon.ico', remoteAddress: CLIENT, headers: BROWSER });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.doesNotMatch(icon.body, /href="https?:/, 'no external asset');
    assert.equal(icon.headers['x-ratelimit-limit'], undefined, 'not counted');
    const robots = await app.inject({ url: '/robots.txt', remoteAddress: CLIENT, headers: CURL });
    assert.equal(robots.statusCode, 200);
    assert.equal(robots.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(robots.body, /^User-agent: \*\n/);
    assert.match(robots.body, /^Disallow: \/api\/$/m);
    assert.equal(robots.headers['x-ratelimit-limit'], undefined, 'not counted');
  } finally {
    await app.close();
  }
});

test('a browser on an unknown path at the limit gets the site page saying when, once', async () => {
  const clock = manualClock('2026-03-01T13:37:00Z');
  const app = await buildTestApp({ RATE_LIMITS: 'public=1/1000' }, { now: clock.now });
  try {
    assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT })).statusCode, 200);
    const page = await app.inject({ url: '/no-such-page', remoteAddress: CLIENT, headers: BROWSER });
    assert.equal(page.statusCode, 429);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['retry-after'], String(23 * 60));
    const main = page.body.slice(page.body.indexOf('<main'), page.body.indexOf('</main>'));
    assert.match(main, /<h1>Too many requests<\/h1>/);
    assert.equal(main.match(/14:00 UTC \(in 23 minutes\)/g)?.length, 1);
  } finally {
    await app.close();
  }
});

test('the 404 page and the home page at 429, at 375 and 1280 px, light and dark: fit, accessible, self-hosted', {
  skip: chromiumSkipReason,
}, async () => {
  const site = await startSite({ RATE_LIMITS: 'public=1/1000' });
  const visitor = { 'x-forwarded-for': CLIENT };
  let fresh = 0;
  try {
    // The visitor's one request of the hour, spent.
    assert.equal((await site.app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT })).statusCode, 200);
    for (const width of WIDTHS) {
      for (const scheme of ['light', 'dark'] as const) {
        for (const [name, url, status] of [
          ['not-found', '/no-such-page', 404],
          ['home-429', '/', 429],
        ] as const) {
          // A fresh visitor per page for the 404, so it is not itself refused by the spent window.
          fresh += 1;
          const headers = name === 'not-found' ? { 'x-forwarded-for': `203.0.113.${fresh}` } : visitor;
          const watched = await watchedPage(site.browser, site.base, { width, scheme, headers });
          const response = await watched.page.goto(`${site.base}${url}`, { waitUntil: 'networkidle' });
          assert.equal(response?.status(), status);
          // Chromium reports the document's own status as a console error; nothing else may fail.
          watched.problems.splice(
            0,
            watched.problems.length,
            ...watched.problems.filter((problem) => !problem.includes(`status of ${status}`)),
          );
          if (name === 'home-429') {
            assert.equal(await watched.page.locator('#my-ip').textContent(), CLIENT);
            await watched.page.locator('main .alert.warn', { hasText: /Rate limit exceeded/ }).waitFor();
          } else {
            assert.ok(await watched.page.locator('#not-found-search').isVisible());
          }
          await assertPageHealthy(watched, `${url} at ${width} px ${scheme}`);
          await screenshot(watched.page, `${name}-${width}-${scheme}`);
          await watched.page.context().close();
        }
      }
    }
  } finally {
    await site.close();
  }
});
