// The monitor pages as the server renders them: the dashboard's form is built from the schemas of
// the checks and of the create route (so a condition or a parameter added to the API shows up, and
// one the page does not know fails here), and "Monitor this" is on the pages of the checks a monitor
// can run, and only those.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';

test('the signed-in dashboard: a fieldset per monitor type with its check fields and conditions, labelled', async () => {
  const { app, close } = await buildAccountsApp();
  try {
    const browser = sessionClient(app);
    await browser.signup('monitors@example.com', PASSWORD);
    const page = await app.inject({ url: '/dashboard', headers: { cookie: browser.state.cookie } });
    const html = page.body;
    assert.match(html, /<section class="card monitors" id="monitors"/);
    const types = [...html.matchAll(/<fieldset class="monitor-type" data-type="(\w+)" hidden disabled>/g)].map(
      (match) => match[1],
    );
    assert.deepEqual(types.sort(), ['blacklist', 'dns', 'http', 'mail', 'mtr', 'ping', 'ssl']);
    // Each type's target is its route's main parameter, marked for the script.
    for (const [type, parameter] of [
      ['http', 'url'],
      ['ssl', 'host'],
      ['dns', 'host'],
      ['blacklist', 'ip'],
      ['mail', 'domain'],
      ['ping', 'host'],
      ['mtr', 'host'],
    ]) {
      assert.match(
        html,
        new RegExp(`<div class="field[^"]*" data-target><label for="monitor-${type}-${parameter}">`),
        `${type}: ${parameter}`,
      );
    }
    // Options keep their tool page's controls: DNS record types, the TCP port only with TCP.
    assert.match(html, /<select id="monitor-dns-record_type"[^>]*>.*<option>MX<\/option>/);
    assert.match(html, /data-only-with="protocol" data-only-value="tcp" hidden><label for="monitor-ping-port">/);
    // Conditions: kinds and limits from the schema, the API's defaults already set.
    assert.match(html, /id="monitor-http-if-status_not" data-condition="status_not" data-kind="list"/);
    assert.match(html, /id="monitor-ping-if-loss_over" data-condition="loss_over" data-kind="number"[^>]* max="100"/);
    assert.match(
      html,
      /id="monitor-ssl-if-invalid" data-condition="invalid" data-kind="flag"[^>]*type="checkbox" checked>/,
    );
    assert.match(html, /id="monitor-ssl-if-expires_within_days"[^>]*value="14"/);
    assert.match(html, /Any one of these makes it down[^<]*A failed handshake is down\./);
    // Every control has its label.
    const ids = [...html.matchAll(/<(?:input|select|textarea) id="([^"]+)"/g)].map((match) => match[1]);
    for (const id of ids) assert.match(html, new RegExp(`<label [^>]*for="${id}">`), `label for ${id}`);
    assert.match(html, /<script type="module" src="\/assets\/monitors\.js\?v=[0-9a-f]{16}">/);
  } finally {
    await close();
  }
});

test('"Monitor this" is on the tool pages of the checks a monitor can run, hidden until a check has run', async () => {
  const { app, close } = await buildAccountsApp();
  try {
    for (const tool of ['dns', 'ssl', 'blacklist', 'mail', 'http', 'ping', 'mtr']) {
      const html = (await app.inject({ url: `/tools/${tool}` })).body;
      assert.match(html, /<p id="monitor-this" class="monitor-this" hidden><a href="\/dashboard#monitors">/, tool);
    }
    for (const tool of ['whois', 'traceroute']) {
      assert.doesNotMatch((await app.inject({ url: `/tools/${tool}` })).body, /monitor-this/, tool);
    }
  } finally {
    await close();
  }
});
