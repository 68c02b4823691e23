// `npm run bench:pages`: what the home page costs a browser, measured in Debian's Chromium on
// loopback: bytes transferred (page, styles, scripts, map) and largest contentful paint, over fresh
// browser contexts (nothing cached), beside a baseline in the same run: the same page's HTML saved
// once and served as a static file by bare node:http, with no styles, scripts or map. The targets
// (issue 20): under 200 KB transferred, LCP under 500 ms.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { buildTestApp } from '../test/support/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/chromium.ts';

const RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 15);
const VISITOR = '81.2.69.142';

const LCP_SCRIPT = `new Promise((resolve) => {
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    resolve(entries[entries.length - 1].startTime);
  }).observe({ type: 'largest-contentful-paint', buffered: true });
})`;
const BYTES_SCRIPT = `[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
  .reduce((sum, entry) => sum + entry.transferSize, 0)`;

async function measure(browser: Browser, url: string) {
  const lcp: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': VISITOR } });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'networkidle' });
    lcp.push(await page.evaluate<number>(LCP_SCRIPT));
    bytes = await page.evaluate<number>(BYTES_SCRIPT);
    await context.close();
  }
  lcp.sort((a, b) => a - b);
  const at = (q: number) => lcp[Math.min(lcp.length - 1, Math.floor(q * lcp.length))] ?? Number.NaN;
  return { bytes, lcpMin: at(0), lcpMedian: at(0.5), lcpMax: at(1) };
}

const app = await buildTestApp({ TRUST_PROXY: 'loopback', LOG_LEVEL: 'warn', DATA_DIR: '.tmp/bench-data' });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const html = (await app.inject({ url: '/', headers: { accept: 'text/html' }, remoteAddress: VISITOR })).body;
// The page alone: its styles, scripts and map are 404s here, so the baseline paints the bare text.
const bare = createServer((request, response) => {
  if (request.url !== '/') response.writeHead(404).end();
  else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  console.log(`home page in Chromium, ${RUNS} fresh contexts each, loopback:`);
  const rows = {
    'static HTML, bare node:http': await measure(browser, bareUrl),
    'netinfo /': await measure(browser, `${base}/`),
  };
  console.table(
    Object.fromEntries(
      Object.entries(rows).map(([name, row]) => [
        name,
        {
          'KB transferred': Math.round(row.bytes / 102.4) / 10,
          'LCP min ms': Math.round(row.lcpMin),
          'LCP median ms': Math.round(row.lcpMedian),
          'LCP max ms': Math.round(row.lcpMax),
        },
      ]),
    ),
  );
  const netinfo = rows['netinfo /'];
  console.log(`transferred under 200 KB: ${netinfo.bytes < 200 * 1024 ? 'met' : 'NOT met'}`);
  console.log(`median LCP under 500 ms: ${netinfo.lcpMedian < 500 ? 'met' : 'NOT met'}`);
} finally {
  await browser.close();
  bare.close();
  await app.close();
}
