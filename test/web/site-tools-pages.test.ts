// The tool pages as the server renders them (no browser): the form's state comes from the URL,
// escaped; the page names its script; nothing runs on the server; the CSP forbids inline code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAssetStore, versionImports } from '../../src/web/site/assets.ts';
import { TOOLS } from '../../src/web/site/tool-definitions.ts';
import { buildTestApp } from '../support/app.ts';

describe('tool pages, server-rendered', () => {
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  before(async () => {
    app = await buildTestApp();
  });
  after(async () => {
    await app.close();
  });
  const get = (url: string) => app.inject({ url, headers: { accept: 'text/html' } });

  it('/tools links every tool page, and each page answers with its form, h1 and script', async () => {
    const list = await get('/tools');
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes('<a href="/tools/resolver"><strong>Resolver</strong>'), 'the resolver test too');
    for (const tool of TOOLS) {
      assert.ok(list.body.includes(`<a href="${tool.path}"><strong>${tool.heading}</strong>`), tool.key);
      const page = await get(tool.path);
      assert.equal(page.statusCode, 200, tool.path);
      assert.match(page.headers['content-security-policy'] as string, /script-src 'self'/);
      assert.equal(page.body.match(/<h1>/g)?.length, 1, `${tool.path}: one h1`);
      assert.ok(page.body.includes(`<form class="tool" method="get" action="${tool.path}"`), tool.path);
      assert.match(page.body, new RegExp(`<script type="module" src="/assets/${tool.script}\\?v=[0-9a-f]{16}">`));
      assert.match(page.body, /<title>[^<]+ · netinfo<\/title>/);
      assert.doesNotMatch(page.body, /<script>|style="/, 'no inline script or style');
      // Every control has its label.
      for (const [, id] of page.body.matchAll(/<(?:input|select) id="([^"]+)"/g)) {
        assert.match(page.body, new RegExp(`<label[^>]* for="${id}">`), `${tool.path}: label for ${id}`);
      }
    }
  });

  it('fills the form from the URL, escaped, and names the API call for browsers without JavaScript', async () => {
    const page = await get('/tools/dns?host=%22%3E%3Cscript%3Ex%3C%2Fscript%3E&type=MX');
    assert.ok(page.body.includes('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"'));
    assert.ok(!page.body.includes('<script>x'));
    assert.ok(page.body.includes('<option selected>MX</option>'));
    assert.ok(page.body.includes('<title>DNS lookup: &quot;&gt;&lt;script&gt;x&lt;/script&gt; MX · netinfo</title>'));
    assert.ok(
      page.body.includes('href="/api/v1/dns?host=%22%3E%3Cscript%3Ex%3C%2Fscript%3E&amp;record_type=MX"'),
      'the no-script link to the API answer',
    );
    // Nothing is looked up on the server: the browser's script calls the API.
    assert.equal(page.headers['x-ratelimit-limit'], undefined);
  });

  it('ping: the TCP port is in use only with protocol=tcp (hidden, disabled and not sent otherwise)', async () => {
    const tcp = await get('/tools/ping?host=example.com&protocol=tcp&port=22');
    assert.ok(tcp.body.includes('<option value="tcp" selected>TCP</option>'));
    assert.match(
      tcp.body,
      /<div class="field narrow" data-only-with="protocol" data-only-value="tcp"><label for="tool-port">/,
    );
    assert.match(tcp.body, /<input id="tool-port" name="port"[^>]* value="22">/);
    assert.ok(tcp.body.includes('href="/api/v1/ping?host=example.com&amp;count=4&amp;protocol=tcp&amp;port=22"'));
    assert.ok(tcp.body.includes('<title>Ping: example.com 4 tcp 22 · netinfo</title>'));
    const icmp = await get('/tools/ping?host=example.com&port=22');
    assert.match(icmp.body, /data-only-value="tcp" hidden><label for="tool-port">/);
    assert.match(icmp.body, /<input id="tool-port" name="port"[^>]* disabled[^>]*>/);
    assert.ok(icmp.body.includes('href="/api/v1/ping?host=example.com&amp;count=4"'), 'no port for ICMP');
    assert.ok(icmp.body.includes('<title>Ping: example.com 4 · netinfo</title>'));
  });

  it('keeps a value the form does not offer, so the API can say why it is wrong', async () => {
    const page = await get('/tools/dns?host=example.com&type=BOGUS');
    assert.ok(page.body.includes('<option selected>BOGUS</option>'));
    const ping = await get('/tools/ping?host=example.com');
    assert.match(
      ping.body,
      /<input id="tool-count" name="count"[^>]* min="1" max="10" value="4">/,
      'the default count',
    );
    // An option shown in words sends its value; "none" sends nothing, so the API's default applies.
    const ssl = await get('/tools/ssl?host=example.com&starttls=smtp');
    assert.ok(ssl.body.includes('<option value="">none</option><option value="smtp" selected>SMTP</option>'));
    assert.ok(
      ssl.body.includes('<option value="" selected>not tested</option><option value="true">test each</option>'),
    );
    assert.ok(ssl.body.includes('href="/api/v1/ssl?host=example.com&amp;starttls=smtp"'));
    const empty = await get('/tools/whois');
    assert.doesNotMatch(empty.body, /<noscript>/, 'nothing to run, nothing to link');
    assert.ok(empty.body.includes('<title>WHOIS lookup · netinfo</title>'));
  });

  it('the tool modules import tool.js by its versioned URL, cached like every asset', async () => {
    const assets = createAssetStore();
    const tool = assets.url('tool.js');
    for (const name of ['tool-dns.js', 'json-tool.js', 'ping.js', 'traceroute.js']) {
      const served = await app.inject({ url: assets.url(name) });
      assert.equal(served.statusCode, 200);
      assert.match(served.headers['cache-control'] as string, /immutable/);
      assert.ok(served.body.includes(`from './${tool.slice('/assets/'.length)}'`), name);
    }
    assert.throws(
      () => versionImports("import { h } from './later.js';", () => undefined),
      /later\.js is imported before/,
    );
  });
});
