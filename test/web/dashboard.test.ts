import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';

/**
 * Attribute values that load a resource or send a form: none may leave the service's own origin.
 * (Links a reader may follow, such as the footer's credits, are `<a href>` and not among them.)
 */
function resourceUrls(html: string): string[] {
  return [
    ...[...html.matchAll(/\s(?:src|action)="([^"]*)"/g)],
    ...[...html.matchAll(/<link [^>]*href="([^"]*)"/g)],
  ].map((match) => match[1] ?? '');
}

test('the signed-out page: two labelled forms, no external assets, strict headers, not rate-limited', async () => {
  const { app, close } = await buildAccountsApp();
  const response = await app.inject({ url: '/dashboard' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.match(
    String(response.headers['content-security-policy']),
    /default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/,
  );
  assert.equal(response.headers['x-frame-options'], 'DENY');
  assert.equal(response.headers['x-ratelimit-limit'], undefined);
  const html = response.body;
  assert.match(html, /<html lang="en">/);
  for (const url of resourceUrls(html)) assert.ok(url.startsWith('/') || url.startsWith('#') || url === 'data:,', url);
  assert.doesNotMatch(html, /<script>|<style>|\sstyle="|\son[a-z]+="/, 'no inline code (the CSP forbids it)');
  // Every input has a label pointing at it.
  const inputs = [...html.matchAll(/<input id="([^"]+)"/g)].map((match) => match[1]);
  assert.equal(inputs.length, 5, "the site's search box, and email and password of both forms");
  for (const id of inputs) assert.match(html, new RegExp(`<label [^>]*for="${id}">`), `label for ${id}`);
  assert.match(html, /autocomplete="current-password"/);
  assert.match(html, /autocomplete="new-password"/);
  await close();
});

test('the static files: right types, versioned URLs cached for good, ETags, unknown names 404', async () => {
  const { app, close } = await buildAccountsApp();
  const html = (await app.inject({ url: '/dashboard' })).body;
  const css = /href="(\/dashboard\/assets\/dashboard\.css\?v=[0-9a-f]{16})"/.exec(html)?.[1] ?? '';
  const js = /src="(\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]{16})"/.exec(html)?.[1] ?? '';
  const style = await app.inject({ url: css });
  assert.equal(style.statusCode, 200);
  assert.match(String(style.headers['content-type']), /^text\/css/);
  assert.equal(style.headers['cache-control'], 'public, max-age=31536000, immutable');
  const script = await app.inject({ url: js });
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
  assert.match(script.body, /X-CSRF-Token/);
  const unversioned = await app.inject({ url: '/dashboard/assets/dashboard.js' });
  assert.equal(unversioned.headers['cache-control'], 'no-cache');
  const revalidated = await app.inject({
    url: '/dashboard/assets/dashboard.js',
    headers: { 'if-none-match': String(unversioned.headers.etag) },
  });
  assert.equal(revalidated.statusCode, 304);
  assert.equal((await app.inject({ url: '/dashboard/assets/../../package.json' })).statusCode, 404);
  assert.equal((await app.inject({ url: '/dashboard/assets/secret.txt' })).statusCode, 404);
  await close();
});

test('the signed-in page: plan, limits, usage and keys, names escaped, never a key', async () => {
  const { app, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const hostile = '<img src=x onerror="alert(1)">&amp;';
  const created = (await browser.createKey(hostile)).json();
  await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${created.key}` } });
  const page = await app.inject({
    url: '/dashboard',
    headers: { cookie: browser.state.cookie, host: 'netinfo.example' },
  });
  assert.equal(page.statusCode, 200);
  const html = page.body;
  assert.match(html, /Signed in as <strong>ann@example\.com<\/strong>/);
  assert.match(html, /<dd>Free <span class="hint">\(Pro: coming soon\)<\/span><\/dd>/);
  assert.match(html, /1,000 requests an hour, 10,000 a day/);
  assert.match(html, /<span>This hour<\/span><span>1 of 1,000<\/span>/);
  assert.match(html, /id="key-count" data-quota="5">1<\/span> of 5/);
  assert.match(html, new RegExp(`<code>${created.prefix}…</code>`));
  assert.match(html, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&amp;amp;/);
  assert.ok(!html.includes('<img src=x'), 'the key name is not markup');
  assert.ok(!html.includes(created.key), 'the key itself is never in a page');
  assert.match(html, new RegExp(`<meta name="csrf-token" content="${browser.state.csrf}">`));
  assert.match(html, /http:\/\/netinfo\.example\/api\/v1\/ipv6/);
  for (const url of resourceUrls(html)) assert.ok(url.startsWith('/') || url.startsWith('#') || url === 'data:,', url);
  await close();
});
