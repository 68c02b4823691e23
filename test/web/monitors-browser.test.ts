// The dashboard's monitors as a person uses them, in Debian's headless Chromium against the real
// API: an HTTP check run on its tool page becomes a monitor through "Monitor this" and the form; it
// runs every second against a server on loopback, goes down when that server fails, notifies a
// webhook receiver on loopback (signed with the secret the page showed once), and its detail shows
// the chart, the incident and the delivery; then it is paused and deleted.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { PASSWORD } from '../support/accounts.ts';
import { chromiumSkipReason } from '../support/chromium.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';
import {
  assertPageHealthy,
  FAILED_LOAD,
  screenshot,
  startSite,
  type WatchedPage,
  watchedPage,
} from '../support/site-browser.ts';

const skip = chromiumSkipReason;

/** A webhook receiver on loopback: every POST it got, answered 200. */
async function startReceiver() {
  const received: { headers: Record<string, unknown>; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/netinfo`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Light and dark at the page's width: no foreign request or script error, no sideways scrolling, axe. */
async function checkBoth(watched: WatchedPage, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await watched.page.emulateMedia({ colorScheme: scheme });
    const problems = watched.problems.filter((problem) => !problem.startsWith(FAILED_LOAD));
    await assertPageHealthy({ ...watched, problems }, `${name} (${scheme})`);
    await screenshot(watched.page, `${name}-${scheme}`);
  }
  await watched.page.emulateMedia({ colorScheme: 'light' });
}

async function signUp(page: Page, base: string, email: string) {
  await page.goto(`${base}/dashboard`);
  const signup = page.locator('#signup-form');
  await signup.getByLabel('Email').fill(email);
  await signup.getByLabel('Password').fill(PASSWORD);
  await signup.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Signed in as').waitFor();
}

const row = (page: Page, name: string) => page.locator('#monitor-list tr', { hasText: name });

test('monitors in Chromium: "Monitor this", the form, the list, the detail, pause and delete', {
  skip,
  timeout: 240_000,
}, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-monitors-'));
  const target = await startLocalHttpServer();
  let failing = false;
  target.set('/health', () => (failing ? { status: 500, body: 'broken' } : { status: 200, body: 'fine' }));
  const receiver = await startReceiver();
  const site = await startSite({
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_TARGETS: 'true',
    MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
    WEBHOOK_RETRY_BASE_SECONDS: '1',
  });
  const { base, browser } = site;
  try {
    const watched = await watchedPage(browser, base, { width: 1280 });
    const { page } = watched;
    await signUp(page, base, 'monitors@example.com');

    // The check on its tool page; once it has run, "Monitor this" carries it to the dashboard.
    const url = `${target.origin}/health`;
    await page.goto(`${base}/tools/http?url=${encodeURIComponent(url)}&body_contains=fine`);
    const offer = page.locator('#monitor-this');
    await offer.waitFor({ state: 'visible' });
    assert.match(
      (await page.locator('section[aria-labelledby="card-response"]').textContent()) ?? '',
      /The text asked for\s*found/,
    );
    await checkBoth(watched, 'monitors-this-http-1280');
    await Promise.all([page.waitForURL(/\/dashboard\?monitor=/), offer.getByRole('link').click()]);
    assert.equal(
      new URL(page.url()).searchParams.get('monitor'),
      `/api/v1/http?url=${encodeURIComponent(url)}&method=GET&body_contains=fine`,
    );
    const editor = page.locator('#monitor-editor');
    await editor.waitFor({ state: 'visible' });
    assert.equal(await editor.getByLabel('Check').inputValue(), 'http');
    assert.equal(await editor.getByLabel('URL', { exact: true }).inputValue(), url);
    assert.equal(await editor.getByLabel('Method').inputValue(), 'GET');
    assert.equal(await editor.getByLabel('Name', { exact: true }).inputValue(), `HTTP ${url}`);
    // The check's body_contains is the monitor's body_missing condition.
    assert.equal(await editor.getByLabel('the body lacks').inputValue(), 'fine');

    await editor.getByLabel('Name', { exact: true }).fill('Health page');
    await editor.getByLabel('the status is not one of').fill('200');
    await editor.getByLabel('Every (seconds)').fill('1');
    await editor.getByLabel('Webhooks').fill(receiver.url);
    await checkBoth(watched, 'monitors-form-1280');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    const secretPanel = page.locator('#monitor-secret');
    await secretPanel.waitFor({ state: 'visible' });
    const secret = (await page.locator('#monitor-secret-value').textContent()) ?? '';
    assert.ok(secret.length >= 20, secret);
    assert.match((await secretPanel.textContent()) ?? '', /shown only this once/);
    assert.equal(await page.locator('#monitor-secret:focus').count(), 1, 'focus moves to the secret');
    const copy = page.getByRole('button', { name: 'Copy the webhook secret' });
    await copy.click();
    await page
      .locator('#monitor-secret .copy')
      .filter({ hasText: /^(Copied|Select and copy)$/ })
      .waitFor();
    await page
      .locator('#monitor-secret .copy')
      .filter({ hasText: /^Copy$/ })
      .waitFor();
    await checkBoth(watched, 'monitors-secret-1280');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.ok(await page.locator('#monitor-editor').isHidden());
    assert.equal(new URL(page.url()).search, '', 'a reload does not open the form again');
    await page.reload();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
    assert.ok(await page.locator('#monitor-editor').isHidden());

    // Listed; its first run (at once) makes it up, which the list shows in words.
    const listed = row(page, 'Health page');
    await listed.locator('.badge', { hasText: /^up$/ }).waitFor({ timeout: 30_000 });
    assert.match((await listed.textContent()) ?? '', /HTTP\s*http:\/\/127\.0\.0\.1:\d+\/health/);
    assert.match((await listed.textContent()) ?? '', /100%/);

    // The target fails: the monitor goes down, an incident opens and the receiver is told.
    failing = true;
    for (let i = 0; i < 30 && receiver.received.length === 0; i++) await page.waitForTimeout(500);
    const [delivery] = receiver.received;
    assert.ok(delivery, 'the webhook was sent');
    const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['x-netinfo-signature']));
    assert.ok(signature, String(delivery.headers['x-netinfo-signature']));
    const expected = createHmac('sha256', secret).update(`${signature[1]}.${delivery.body}`).digest('hex');
    assert.equal(signature[2], expected, 'signed with the secret the page showed');
    assert.equal(JSON.parse(delivery.body).event, 'monitor.down');
    await page.reload();
    await row(page, 'Health page')
      .locator('.badge', { hasText: /^down$/ })
      .waitFor();

    await page.getByRole('button', { name: 'Health page', exact: true }).click();
    const detail = page.locator('#monitor-detail');
    await page.locator('#monitor-detail-title:focus').waitFor();
    assert.ok((await detail.locator('svg.chart circle.point').count()) >= 1, 'up runs are points');
    assert.ok((await detail.locator('svg.chart path.lost').count()) >= 1, 'down runs are marked');
    assert.match((await detail.locator('svg.chart').getAttribute('aria-label')) ?? '', /^Response times of the last/);
    assert.match(
      (await detail.locator('svg.chart').textContent()) ?? '',
      /^0 ms.*\d\d:\d\d.*time \(UTC\)/,
      'axes in ms and UTC times',
    );
    assert.match((await detail.locator('section[aria-labelledby="card-state"]').textContent()) ?? '', /down since/);
    const incidents = detail.locator('section[aria-labelledby="card-incidents"]');
    assert.match((await incidents.textContent()) ?? '', /open.*status 500/);
    const deliveries = detail.locator('section[aria-labelledby="card-webhook-deliveries"]');
    assert.match((await deliveries.textContent()) ?? '', /delivered\s*monitor\.down to http:\/\/127\.0\.0\.1/);
    assert.match((await deliveries.locator('ol.attempts').textContent()) ?? '', /HTTP 200/);
    await checkBoth(watched, 'monitors-detail-1280');

    // Paused, then resumed from the list; then deleted after the confirmation.
    await page.getByRole('button', { name: 'Pause Health page' }).click();
    await page.getByRole('status').filter({ hasText: 'Monitor “Health page” paused.' }).waitFor();
    await row(page, 'Health page')
      .locator('.badge', { hasText: /^paused$/ })
      .waitFor();
    await page.getByRole('button', { name: 'Resume Health page' }).click();
    await page.getByRole('status').filter({ hasText: 'Monitor “Health page” resumed.' }).waitFor();
    // Edited: the form holds the monitor as it is; the change is saved.
    await page.getByRole('button', { name: 'Edit Health page' }).click();
    assert.equal(await page.getByLabel('the status is not one of').inputValue(), '200');
    assert.equal(await page.getByLabel('Webhooks').inputValue(), receiver.url);
    await page.getByLabel('Every (seconds)').fill('60');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Monitor “Health page” saved.' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Health page' }).click();
    await page.getByRole('status').filter({ hasText: 'Monitor “Health page” deleted.' }).waitFor();
    assert.equal(await row(page, 'Health page').count(), 0);
    assert.ok(await detail.isHidden(), 'the deleted monitor’s detail is closed');
    await page.context().close();

    // A phone: the list, the form and a detail fit 375 px.
    failing = false;
    const phone = await watchedPage(browser, base, { width: 375 });
    await signUp(phone.page, base, 'phone@example.com');
    // A check run from chosen places keeps them: the form's "from" has them chosen.
    const check = encodeURIComponent(`/api/v1/http?url=${encodeURIComponent(url)}&method=GET`);
    await phone.page.goto(`${base}/dashboard?monitor=${check}&from=country:ZZ&from=tag:edge&probes=2#monitors`);
    await phone.page.locator('#monitor-editor').waitFor({ state: 'visible' });
    assert.deepEqual(
      await phone.page
        .locator('#tool-from option:checked')
        .evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
      ['country:ZZ', 'tag:edge'],
    );
    assert.equal(await phone.page.locator('#tool-probes').inputValue(), '2');
    await phone.page.goto(`${base}/dashboard?monitor=${check}#monitors`);
    await phone.page.locator('#monitor-editor').waitFor({ state: 'visible' });
    await phone.page.getByLabel('Every (seconds)').fill('1');
    await checkBoth(phone, 'monitors-form-375');
    await phone.page.getByRole('button', { name: 'Create monitor' }).click();
    await phone.page.getByRole('button', { name: 'Done' }).click();
    await row(phone.page, url).locator('.badge', { hasText: /^up$/ }).waitFor({ timeout: 30_000 });
    await phone.page.locator('#monitor-list button[data-action="open"]').click();
    await phone.page.locator('#monitor-detail-title:focus').waitFor();
    await checkBoth(phone, 'monitors-detail-375');
    await phone.page.locator('#monitor-detail-close').click();
    await checkBoth(phone, 'monitors-list-375');
  } finally {
    await site.close();
    await receiver.close();
    await target.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
