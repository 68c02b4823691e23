// The site's pages in Debian's Chromium: the app listening on loopback, a browser, and checks every
// page test makes (no request to another origin, no script error, no sideways scrolling, axe).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AppDeps } from '../../src/app.ts';
import { buildTestApp } from './app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';

export const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', '.tmp', 'screenshots');
export const WIDTHS = [375, 1280] as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function startSite(
  env: Record<string, string> = {},
  deps: AppDeps = {},
  listen: { host?: string; port?: number; browserArgs?: string[] } = {},
) {
  const { chromium } = await import('playwright-core');
  const app = await buildTestApp({ TRUST_PROXY: 'loopback', ...env }, deps);
  await app.listen({ port: listen.port ?? 0, host: listen.host ?? '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...(listen.browserArgs ?? [])],
    headless: true,
  });
  return {
    app,
    base,
    port,
    browser,
    async close() {
      await browser.close();
      await app.close();
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Requests to any origin but the allowed ones, and script errors, as they happened. */
  problems: string[];
}

/** A page that records every request to another origin and every script error. */
export async function watchedPage(
  browser: Browser,
  base: string,
  options: {
    width: number;
    scheme?: 'light' | 'dark';
    headers?: Record<string, string>;
    javaScript?: boolean;
    allowedOrigins?: string[];
  },
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: 900 },
    colorScheme: options.scheme ?? 'light',
    javaScriptEnabled: options.javaScript ?? true,
    ...(options.headers ? { extraHTTPHeaders: options.headers } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed = [new URL(base).origin, ...(options.allowedOrigins ?? [])];
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:')) return;
    if (!allowed.includes(new URL(url).origin)) problems.push(`request to another origin: ${url}`);
  });
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return { page, problems };
}

/** Horizontal overflow in CSS pixels (0: the page fits its viewport). */
export async function overflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

/**
 * axe-core's serious and critical violations, as lines. Evaluated through the DevTools protocol,
 * which the page's CSP does not govern (an injected <script> would be refused, rightly).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    interface Violation {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: unknown[] }[];
    }
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 3),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(', ')}`);
}

/** A full-page screenshot under .tmp/screenshots (test artefacts, looked at by people). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The checks every page passes at every width and scheme. */
export async function assertPageHealthy(watched: WatchedPage, what: string): Promise<void> {
  assert.deepEqual(watched.problems, [], `${what}: no foreign request, no script error`);
  assert.equal(await overflow(watched.page), 0, `${what}: no horizontal scrolling`);
  assert.deepEqual(await seriousViolations(watched.page), [], `${what}: axe finds no serious or critical violation`);
}

/** How Chromium logs an answer with an error status: expected where the test asks for one. */
export const FAILED_LOAD = 'console error: Failed to load resource: the server responded with a status of';

/**
 * An IP lookup page's abuse contact once its script has its answer: here, with no registry to ask,
 * "no abuse contact found" and the one failed load that logged (502), taken so the checks after
 * see anything else.
 */
export async function settleAbuseContact(watched: WatchedPage): Promise<void> {
  await watched.page.locator('.abuse-contact', { hasText: 'no abuse contact found' }).waitFor();
  const index = watched.problems.findIndex((problem) => problem.startsWith(`${FAILED_LOAD} 502`));
  assert.ok(index >= 0, `the abuse lookup's 502, among: ${watched.problems.join('; ')}`);
  watched.problems.splice(index, 1);
}

/**
 * What every tool page must pass once its result shows (one h1, a title, no sideways scrolling, no
 * foreign request or script error, axe in both schemes); then its screenshots, light and dark.
 */
export async function checkToolPage({ page, problems }: WatchedPage, name: string, { failedLoads = false } = {}) {
  assert.equal(await overflow(page), 0, `${name}: no horizontal scrolling`);
  assert.equal(await page.locator('h1').count(), 1, `${name}: one h1`);
  assert.ok((await page.title()).endsWith('· netinfo'), `${name}: a title`);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await seriousViolations(page), [], `${name} (${scheme}): axe-core`);
    await screenshot(page, `${name}-${scheme}`);
  }
  const unexpected = failedLoads ? problems.filter((problem) => !problem.startsWith(FAILED_LOAD)) : problems;
  assert.deepEqual(unexpected, [], name);
  await page.context().close();
}
