// Issue 28, item 7: how the tool pages lay out what they show, in Debian's Chromium. The API's
// answers are canned with page.route (the pages are what is tested, not the API): the ping chart's
// axis labels inside the chart at any width, DNS names wrapping after their dots only, the count
// phrases in the singular, and a DNS page that does not shift as its answer arrives. Screenshots of
// each page with results, light and dark, go to .tmp/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason } from '../support/chromium.ts';
import { overflow, screenshot, startSite, WIDTHS, watchedPage } from '../support/site-browser.ts';

const skip = chromiumSkipReason;

const sse = (events: object[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');

/** A ping run on loopback: the largest reply 0.047 ms, so the y axis reaches 0.05 ms or so. */
function pingEvents(times: (number | null)[]) {
  const replies = times.filter((time): time is number => time !== null);
  return [
    { type: 'start', host: 'host.example.test', resolved_ip: '192.0.2.1' },
    ...times.map((time, index) =>
      time === null
        ? { type: 'timeout', seq: index + 1 }
        : { type: 'reply', seq: index + 1, ip: '192.0.2.1', time_ms: time, ttl: 64, late: false },
    ),
    {
      type: 'done',
      packets_sent: times.length,
      packets_received: replies.length,
      packet_loss: Math.round((100 * (times.length - replies.length)) / times.length),
      min_ms: Math.min(...replies),
      avg_ms: replies.reduce((sum, time) => sum + time, 0) / replies.length,
      max_ms: Math.max(...replies),
    },
  ];
}

const LONG_NAME = 'a-very-long-label-of-sixty-three-characters-xxxxxxxxxxxxxxxxxxxx.example.com';
const TARGET = 'another-rather-long-label-for-the-target.cdn-provider-with-a-long-name.example.net';
const DNS_ANSWER = {
  host: LONG_NAME,
  record_type: 'A',
  status: 'NOERROR',
  cached: false,
  records: [
    { record_type: 'CNAME', name: LONG_NAME, ttl: 300, value: TARGET },
    { record_type: 'A', name: TARGET, ttl: 60, value: '192.0.2.1' },
  ],
};

/** What the page functions below use of the browser's DOM (the project is typed without it). */
interface TextNode {
  textContent: string | null;
}
declare const document: {
  createTreeWalker(root: unknown, whatToShow: number): { nextNode(): TextNode | null };
  createRange(): {
    setStart(node: TextNode, offset: number): void;
    setEnd(node: TextNode, offset: number): void;
    getClientRects(): ArrayLike<{ top: number }>;
  };
};
/** The text of each matched element as rendered, cut into its lines (where the browser wrapped it). */
function renderedLines(page: Page, selector: string): Promise<string[][]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements.map((element) => {
      const lines: string[] = [];
      let line = '';
      let top: number | undefined;
      const walker = document.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let index = 0; index < text.length; index++) {
          const range = document.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          const rect = range.getClientRects()[0];
          if (!rect) continue;
          if (top !== undefined && rect.top > top + 2) {
            lines.push(line);
            line = '';
          }
          if (top === undefined || rect.top > top + 2) top = rect.top;
          line += text[index];
        }
      }
      lines.push(line);
      return lines;
    }),
  );
}

/** The layout shifts the page recorded since it started loading (none while the visitor typed). */
function layoutShifts(page: Page): Promise<number[]> {
  return page.evaluate(
    () =>
      new Promise<number[]>((resolve) => {
        const observer = new PerformanceObserver((list) => {
          observer.disconnect();
          resolve(
            (list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
              .filter((entry) => !entry.hadRecentInput)
              .map((entry) => entry.value),
          );
        });
        // Node's types list only the entry types Node has.
        const observe = observer.observe.bind(observer) as (options: { type: string; buffered: boolean }) => void;
        observe({ type: 'layout-shift', buffered: true });
        // No entry at all: the observer is never called.
        setTimeout(() => resolve([]), 500);
      }),
  );
}

describe('issue 28: tool page layout in Chromium', { skip, timeout: 240_000 }, () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let browser: Browser;
  let base = '';

  before(async () => {
    site = await startSite();
    ({ base, browser } = site);
  });
  after(async () => {
    await site?.close();
  });

  async function open(width: number, url: string, prepare: (page: Page) => Promise<unknown>) {
    const watched = await watchedPage(browser, base, { width });
    await prepare(watched.page);
    await watched.page.goto(`${base}${url}`);
    return watched;
  }

  async function screenshots(page: Page, name: string) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await screenshot(page, `${name}-${scheme}`);
    }
  }

  it('the ping chart’s axis labels lie inside the chart at 320, 375, 768 and 1280 px', async () => {
    // Loopback times (the y labels were cut: "0.0125 ms" began left of the chart), and a spread one.
    const runs = [
      [0.031, 0.047, 0.022, 0.04],
      [0.041, 1234.5, 12.3, null, 0.9, 3.3, 99.1, 0.5, 7.7, 15.2],
    ];
    for (const [run, times] of runs.entries()) {
      for (const width of [320, 375, 768, 1280]) {
        const watched = await open(width, `/tools/ping?host=host.example.test&count=${times.length}`, (page) =>
          page.route('**/api/v1/ping?**', (route) =>
            route.fulfill({ contentType: 'text/event-stream', body: sse(pingEvents(times)) }),
          ),
        );
        const { page } = watched;
        await page.locator('#ping-summary').waitFor();
        const outside = await page.locator('svg.chart').evaluate((chart) => {
          const box = chart.getBoundingClientRect();
          return [...chart.querySelectorAll('text')]
            .map((label) => ({ text: label.textContent, rect: label.getBoundingClientRect() }))
            .filter(
              ({ rect }) =>
                rect.left < box.left || rect.right > box.right || rect.top < box.top || rect.bottom > box.bottom,
            )
            .map(
              ({ text, rect }) =>
                `${text} at ${Math.round(rect.left - box.left)}..${Math.round(rect.right - box.left)}`,
            );
        });
        assert.deepEqual(outside, [], `run ${run} at ${width} px: every axis label inside the chart`);
        assert.ok((await page.locator('svg.chart text').count()) >= 6, 'axis labels drawn');
        assert.equal(await overflow(page), 0, `${width} px: no horizontal scrolling`);
        if (run === 1 && (WIDTHS as readonly number[]).includes(width)) await screenshots(page, `layout-ping-${width}`);
        assert.deepEqual(watched.problems, []);
        await page.context().close();
      }
    }
  });

  it('a DNS name wraps only after a dot, never inside a label, in the table, its heading and summary', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, `/tools/dns?host=${LONG_NAME}&type=A`, (page) =>
        page.route('**/api/v1/dns?**', (route) => route.fulfill({ json: DNS_ANSWER })),
      );
      const { page } = watched;
      await page.locator('table.records tbody tr').first().waitFor();
      const names = await renderedLines(page, 'table.records tbody td:nth-child(1)');
      const values = await renderedLines(page, 'table.records tbody td:nth-child(4)');
      assert.deepEqual(
        names.map((lines) => lines.join('')),
        [LONG_NAME, TARGET],
      );
      for (const lines of [...names, values[0] ?? []]) {
        for (const line of lines.slice(0, -1))
          assert.match(line, /\.$/, `${width} px: a line ends after a dot: ${lines}`);
      }
      if (width === 375) {
        assert.deepEqual(names[0], [
          'a-very-long-label-of-sixty-three-characters-xxxxxxxxxxxxxxxxxxxx.',
          'example.com',
        ]);
      }
      // A heading cannot scroll: its labels break at dots, and inside only a label wider than the line.
      const heading = (await renderedLines(page, '.tool-result h2'))[0] ?? [];
      assert.equal(heading.join(''), `${LONG_NAME} A`);
      const firstLabel = LONG_NAME.indexOf('.') + 1;
      let at = 0;
      for (const line of heading.slice(0, -1)) {
        at += line.length;
        // Only the 63-character label, wider than a 375 px line, may break inside.
        const inside = width === 375 && at < firstLabel;
        assert.ok(line.endsWith('.') || inside, `${width} px: the heading breaks after dots: ${heading}`);
      }
      assert.equal(await overflow(page), 0, `${width} px: no horizontal scrolling of the page`);
      await screenshots(page, `layout-dns-long-name-${width}`);
      assert.deepEqual(watched.problems, []);
      await page.context().close();
    }
  });

  it('the DNS page does not shift as its answer arrives (CLS < 0.05), at 375 and 1280 px', async () => {
    const answer = {
      host: 'example.test',
      record_type: 'MX',
      status: 'NOERROR',
      cached: false,
      records: [
        { record_type: 'MX', name: 'example.test', ttl: 3600, value: '10 mx1.example.test' },
        { record_type: 'MX', name: 'example.test', ttl: 3600, value: '20 mx2.example.test' },
      ],
    };
    for (const width of WIDTHS) {
      const watched = await open(width, '/tools/dns?host=example.test&type=MX', (page) =>
        page.route('**/api/v1/dns?**', async (route) => {
          // As over a network: the page has laid out and painted before the answer comes.
          await new Promise((resolve) => setTimeout(resolve, 400));
          await route.fulfill({ json: answer });
        }),
      );
      const { page } = watched;
      await page.locator('table.records tbody tr').nth(1).waitFor();
      // Every shift summed: at least Lighthouse's CLS (the worst window of them).
      const shifts = await layoutShifts(page);
      const total = shifts.reduce((sum, value) => sum + value, 0);
      assert.ok(total < 0.05, `${width} px: layout shift ${total.toFixed(3)} (${shifts.join(', ')})`);
      await screenshots(page, `layout-dns-${width}`);
      assert.deepEqual(watched.problems, []);
      await page.context().close();
    }
  });

  it('counts read in the singular for one: "Reached in 1 hop", "of 1 request"', async () => {
    for (const width of WIDTHS) {
      const trace = await open(width, '/tools/traceroute?host=192.0.2.1', async (page) => {
        await page.route('**/api/v1/traceroute?**', (route) =>
          route.fulfill({
            contentType: 'text/event-stream',
            body: sse([
              { type: 'start', host: '192.0.2.1', resolved_ip: '192.0.2.1' },
              { type: 'hop', hop: 1, ip: '192.0.2.1', hostname: null, rtt_ms: 0.051, annotation: null },
              { type: 'done', reached: true, total_hops: 1 },
            ]),
          }),
        );
        await page.route('**/api/v1/batch', (route) => route.fulfill({ json: { '192.0.2.1': { ip: '192.0.2.1' } } }));
      });
      await trace.page.locator('.verdict').waitFor();
      assert.equal(await trace.page.locator('.verdict').textContent(), 'Reached in 1 hop.');
      assert.equal(await trace.page.locator('#tool-status').textContent(), 'Reached in 1 hop.');
      await trace.page.locator('#hops tbody tr.pending').waitFor({ state: 'detached' });
      await screenshots(trace.page, `layout-traceroute-${width}`);
      assert.deepEqual(trace.problems, []);
      await trace.page.context().close();
    }
    const ping = await open(375, '/tools/ping?host=host.example.test&count=1', (page) =>
      page.route('**/api/v1/ping?**', (route) =>
        route.fulfill({ contentType: 'text/event-stream', body: sse(pingEvents([0.047])) }),
      ),
    );
    await ping.page.locator('#ping-summary').waitFor();
    assert.equal(
      await ping.page.locator('svg.chart').getAttribute('aria-label'),
      'Round-trip times: 1 reply, 0 lost, of 1 request.',
    );
    assert.equal(await ping.page.locator('#tool-status').textContent(), 'Done: 1 of 1 reply, 0% loss.');
    await ping.page.context().close();
  });
});
