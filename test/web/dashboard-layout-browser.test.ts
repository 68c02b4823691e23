// The dashboard on a phone-sized screen and a desktop one, in Debian's headless Chromium: nothing
// runs past the right edge, and the empty key list says what it means. Screenshots of each state go
// to .tmp/screenshots (light and dark colour schemes) for a person to look at.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { PASSWORD } from '../support/accounts.ts';
import { chromiumSkipReason, startAppAndBrowser } from '../support/chromium.ts';

const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', '.tmp', 'screenshots');
const skip = chromiumSkipReason;

// Evaluated in the page (the project's TypeScript has no DOM types, so these are strings).
const OVERFLOW = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
const OVERFLOWING = `[...document.querySelectorAll('body *')]
  .filter((node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .map((node) => node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + '.' + node.className)`;

/** How far the page is wider than its viewport, in CSS pixels (0 when nothing overflows). */
async function horizontalOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate(OVERFLOW));
}

/** The elements whose right edge passes the viewport's, to say what overflows when something does. */
async function overflowing(page: Page): Promise<string[]> {
  return (await page.evaluate(OVERFLOWING)) as string[];
}

async function screenshots(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

// Regression: at 375-390 px the curl example with a new key ran past its panel and the page scrolled
// sideways; after revoking the only key the list said "No keys yet." and the key stayed on show.
test('dashboard at 375 and 390 px: no horizontal overflow with a key shown; the empty list after revoking', {
  skip,
  timeout: 120_000,
}, async () => {
  const { base, page, close } = await startAppAndBrowser({ viewport: { width: 375, height: 800 } });
  await mkdir(SCREENSHOTS, { recursive: true });
  try {
    await page.goto(`${base}/dashboard`);
    assert.equal(await horizontalOverflow(page), 0, (await overflowing(page)).join(', '));
    await screenshots(page, 'dashboard-375-signed-out');
    const signup = page.locator('#signup-form');
    await signup.getByLabel('Email').fill('a.rather.long.address.for.a.phone@example.com');
    await signup.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      signup.getByRole('button', { name: 'Create account' }).click(),
    ]);
    await page.getByText('Signed in as').waitFor();
    assert.equal(await page.locator('#no-keys').textContent(), 'No active keys. Create one above.');

    await page.locator('#create-key-form').getByLabel('Name').fill('phone');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor({ state: 'visible' });
    const key = (await page.locator('#new-key-value').textContent()) ?? '';
    assert.match(key, /^nk_/);
    assert.ok(
      (await page.locator('#new-key code').last().textContent())?.includes(key),
      'the curl example has the key',
    );
    for (const width of [375, 390]) {
      await page.setViewportSize({ width, height: 800 });
      assert.equal(await horizontalOverflow(page), 0, `${width} px: ${(await overflowing(page)).join(', ')}`);
    }
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshots(page, 'dashboard-375-new-key');
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.equal(await horizontalOverflow(page), 0, (await overflowing(page)).join(', '));
    await screenshots(page, 'dashboard-1280-new-key');

    await page.setViewportSize({ width: 375, height: 800 });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key phone' }).click();
    await page.getByRole('status').filter({ hasText: 'Key "phone" revoked.' }).waitFor();
    assert.ok(await page.locator('#new-key').isHidden(), 'the revoked key is no longer on show');
    assert.ok(!(await page.content()).includes(key));
    const empty = page.locator('#no-keys');
    assert.ok(await empty.isVisible());
    assert.equal(
      await empty.textContent(),
      'No active keys: the keys you revoked no longer work. Create one above to use a key again.',
    );
    assert.equal(await horizontalOverflow(page), 0, (await overflowing(page)).join(', '));
    await screenshots(page, 'dashboard-375-revoked');
    // A reload cannot tell revoked keys from none: it says only that none is active.
    await page.reload();
    assert.equal(await page.locator('#no-keys').textContent(), 'No active keys. Create one above.');
  } finally {
    await close();
  }
});
