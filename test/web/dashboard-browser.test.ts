// The dashboard as a person uses it, in Debian's headless Chromium driven by playwright-core:
// sign up, create a key, read it from the page, call the API with it, revoke it, log out.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { PASSWORD } from '../support/accounts.ts';
import { chromiumSkipReason, startAppAndBrowser } from '../support/chromium.ts';

const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', '.tmp', 'screenshots');
const skip = chromiumSkipReason;
if (skip) console.log(`# ${skip}`);

test('dashboard in Chromium: sign up, create a key, use it, revoke it, log out', {
  skip,
  timeout: 120_000,
}, async () => {
  const { base, page, close } = await startAppAndBrowser({ viewport: { width: 1100, height: 900 } });
  await mkdir(SCREENSHOTS, { recursive: true });
  try {
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The browser reports every 4xx answer as a failed load; the wrong password's 401 is expected.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        failures.push(`console: ${message.text()}`);
      }
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:'))
        failures.push(`external: ${request.url()}`);
    });

    await page.goto(`${base}/dashboard`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-signed-out.png'), fullPage: true });
    // Keyboard users meet the skip link first; following it, the login form comes next.
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('a.skip:focus').count(), 1);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('#login-email:focus').count(), 1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-focus.png') });
    // Labels are wired to their inputs (getByLabel finds them), so screen readers announce them.
    const signup = page.locator('#signup-form');
    await signup.getByLabel('Email').fill('browser@example.com');
    await signup.getByLabel('Password').fill('short');
    await signup.getByRole('button', { name: 'Create account' }).click();
    assert.equal(await page.locator('#signup-form input:invalid').count(), 1, 'the browser checks the length first');
    await signup.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      signup.getByRole('button', { name: 'Create account' }).click(),
    ]);
    await page.getByText('Signed in as').waitFor();

    // The key's name: the monitor form below has a Name too.
    await page.locator('#create-key-form').getByLabel('Name').fill('browser test key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const panel = page.locator('#new-key');
    await panel.waitFor({ state: 'visible' });
    const key = (await page.locator('#new-key-value').textContent()) ?? '';
    assert.match(key, /^nk_[0-9A-Za-z]{36}$/);
    assert.equal(await page.locator('#new-key:focus').count(), 1, 'focus moves to the new key');
    assert.equal(await page.locator('#key-rows tr').count(), 1);
    assert.equal(await page.locator('#key-count').textContent(), '1');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page
      .locator('#copy-status')
      .filter({ hasText: /Copied|Selected/ })
      .waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-new-key.png'), fullPage: true });

    const used = await fetch(`${base}/api/v1/ipv6`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(used.status, 200);
    assert.equal(used.headers.get('x-ratelimit-limit'), '1000');

    // After a reload the key is listed by its prefix only, with its last use.
    await page.reload();
    const row = page.locator('#key-rows tr').first();
    assert.match((await row.textContent()) ?? '', new RegExp(`browser test key\\s*${key.slice(0, 9)}…`));
    assert.ok(!(await page.content()).includes(key), 'the key is not shown again');
    assert.doesNotMatch((await row.locator('td').nth(3).textContent()) ?? '', /never/);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key browser test key' }).click();
    await page.getByRole('status').filter({ hasText: 'Key "browser test key" revoked.' }).waitFor();
    assert.equal(await page.locator('#key-rows tr').count(), 0);
    assert.ok(await page.getByText('No active keys: the keys you revoked no longer work.').isVisible());
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-revoked.png'), fullPage: true });
    const refused = await fetch(`${base}/api/v1/ipv6`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 401);

    await Promise.all([page.waitForURL(`${base}/dashboard`), page.getByRole('button', { name: 'Log out' }).click()]);
    await page.locator('#login-form').waitFor();
    const login = page.locator('#login-form');
    await login.getByLabel('Email').fill('browser@example.com');
    await login.getByLabel('Password').fill('not the password');
    await login.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#login-error').filter({ hasText: 'The email or the password is incorrect.' }).waitFor();
    assert.deepEqual(failures, []);
  } finally {
    await close();
  }
});
