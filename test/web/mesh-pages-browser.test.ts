// Issue 31, part 6: the tool pages' "From" choice and the /nodes page, in Chromium, against the app as
// a mesh of one (no Redis) whose upstreams are local fakes (tool-fakes.ts). A measurement from the
// node by name goes through POST /api/v1/measurements and its EventSource stream, as any client's.
// Screenshots (375 and 1280, light and dark) go to .tmp/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { chromiumSkipReason } from '../support/chromium.ts';
import { checkToolPage, startSite, WIDTHS, watchedPage } from '../support/site-browser.ts';
import { opensslAvailable } from '../support/test-pki.ts';
import { LONG_TXT, startToolFakes } from './tool-fakes.ts';

const skip = chromiumSkipReason || (opensslAvailable() ? false : 'the openssl command is not installed');
if (skip) console.log(`# ${skip}`);

const NODE = 'probe-one';

describe('measurements from several nodes, in Chromium', { skip, timeout: 240_000 }, () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let fakes: Awaited<ReturnType<typeof startToolFakes>>;

  before(async () => {
    fakes = await startToolFakes();
    site = await startSite(
      {
        ...fakes.env,
        NODE_NAME: NODE,
        NODE_LOCATION: 'country=DE,city=Frankfurt,latitude=50.11,longitude=8.68',
        NODE_TAGS: 'lab',
      },
      fakes.deps,
    );
  });
  after(async () => {
    await site?.close();
    await fakes?.close();
  });

  async function open(width: number, url: string) {
    const watched = await watchedPage(site.browser, site.base, { width });
    await watched.page.goto(`${site.base}${url}`);
    return watched;
  }

  const checkPage = checkToolPage;

  const cells = (page: Page | ReturnType<Page['locator']>, selector: string) =>
    page
      .locator(selector)
      .allTextContents()
      .then((texts) => texts.map((text) => text.trim()));

  it('DNS from a node: opening the URL runs the measurement; one row per node, the curl of both calls', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, `/tools/dns?host=example.test&type=TXT&from=node:${NODE}`);
      const { page } = watched;
      const row = page.locator(`table.mesh-table tbody tr[data-node="${NODE}"]`);
      await row.locator('td:nth-child(4)').waitFor({ timeout: 10_000 });
      assert.deepEqual(await cells(page, `table.mesh-table tbody tr[data-node="${NODE}"] > *`), [
        NODE,
        'Frankfurt, DE, EU',
        'NOERROR',
        LONG_TXT,
      ]);
      // One node gave every value: nothing is marked as differing.
      assert.equal(await page.locator('table.mesh-table mark').count(), 0);
      assert.deepEqual(
        await page.locator('#tool-from').evaluate((select) => {
          const options = (select as unknown as { selectedOptions: { value: string }[] }).selectedOptions;
          return [...options].map((option) => option.value);
        }),
        [`node:${NODE}`],
      );
      const commands = await cells(page, '.code code');
      assert.equal(
        commands[0],
        `curl -X POST -H 'content-type: application/json' -d '{"type":"dns","target":"example.test","options":{"record_type":"TXT"},"locations":[{"node":"${NODE}"}]}' '${site.base}/api/v1/measurements'`,
      );
      assert.match(commands[1] ?? '', new RegExp(`^curl -N '${site.base}/api/v1/measurements/[0-9a-f]{32}/events'$`));
      await page.locator('#tool-status').getByText('Done: 1 node measured.').waitFor();
      await checkPage(watched, `mesh-dns-${width}`);
    }
  });

  it('choosing a node in the form puts it in the URL and runs from it; "this node" again runs the single-node route', async () => {
    const watched = await open(375, '/tools/dns?host=example.test&type=TXT');
    const { page } = watched;
    await page.locator('table.records').waitFor();
    assert.equal(await page.locator('table.mesh-table').count(), 0, 'no choice: this node, as before');
    // The node list is asked for only when the choice is opened.
    assert.equal(await page.locator('#tool-from option').count(), 0);
    await page.getByText('Run from other nodes').click();
    await page
      .locator(`#tool-from optgroup[label="Nodes"] option[value="node:${NODE}"]`)
      .waitFor({ state: 'attached' });
    assert.deepEqual(
      await page
        .locator('#tool-from optgroup')
        .evaluateAll((groups) => groups.map((group) => group.getAttribute('label'))),
      ['Nodes', 'Countries', 'Continents', 'Tags'],
    );
    const probes = page.getByLabel('Probes each');
    assert.equal(await probes.isVisible(), false, 'a probe count only with places chosen');
    await page.getByLabel('From').selectOption(`node:${NODE}`);
    assert.equal(await probes.isVisible(), true);
    await page.locator('form.tool button[type="submit"]').click();
    await page.waitForURL(`${site.base}/tools/dns?host=example.test&type=TXT&from=node%3A${NODE}`);
    await page.locator(`table.mesh-table tr[data-node="${NODE}"] td:nth-child(4)`).waitFor();
    await page.goBack();
    await page.locator('table.records').waitFor();
    assert.deepEqual(
      await page.locator('#tool-from').evaluate((select) => (select as unknown as { value: string }).value),
      '',
    );
    await page.goForward();
    await page.locator(`table.mesh-table tr[data-node="${NODE}"] td:nth-child(4)`).waitFor();
    assert.deepEqual(watched.problems, []);
    await page.context().close();
  });

  it('TCP ping from a node: its row fills in live, and the node shows on the map coloured by latency', async () => {
    for (const width of WIDTHS) {
      const url = `/tools/ping?host=127.0.0.1&count=2&protocol=tcp&port=${fakes.webPort}&from=node:${NODE}`;
      const watched = await open(width, url);
      const { page } = watched;
      await page.locator('#tool-status').getByText('Done: 1 node measured.').waitFor({ timeout: 15_000 });
      const [node, place, replies, loss, times] = await cells(page, `table.mesh-table tr[data-node="${NODE}"] > *`);
      assert.deepEqual([node, place, replies, loss], [NODE, 'Frankfurt, DE, EU', '2 of 2', '0%']);
      assert.match(times ?? '', /^[\d.]+ ms \/ [\d.]+ ms \/ [\d.]+ ms$/);
      // The marker's colour is the row's average's (loopback is usually the fastest, not on a busy machine).
      const average = Number(/\/ ([\d.]+) ms \//.exec(times ?? '')?.[1]);
      const expected = average < 30 ? 'lat-fast' : average < 100 ? 'lat-ok' : average < 250 ? 'lat-slow' : 'lat-bad';
      const marker = page.locator('svg.mesh-map circle.pin');
      assert.equal(await marker.getAttribute('class'), `pin ${expected}`);
      assert.equal(await marker.locator('title').textContent(), `${NODE}: average ${average} ms`);
      assert.equal(await marker.getAttribute('cx'), String(8.68 + 180));
      assert.equal(await page.locator('.map-legend li').count(), 5);
      await checkPage(watched, `mesh-ping-${width}`);
    }
  });

  it('traceroute from a node: one table per node, its hops as they come', async () => {
    const watched = await open(1280, `/tools/traceroute?host=127.0.0.1&from=node:${NODE}`);
    const { page } = watched;
    await page.locator('#tool-status').getByText('Done: 1 node measured.').waitFor({ timeout: 20_000 });
    const from = page.locator('section.card', { has: page.getByRole('heading', { name: `From ${NODE}` }) });
    assert.deepEqual(await cells(from, 'tbody tr:first-child td'), ['1', '192.0.2.1', 'gw.example.test', '0.047 ms']);
    assert.equal(await cells(from, 'tbody tr:nth-child(2) td:nth-child(2)').then((texts) => texts[0]), '*');
    assert.match((await from.locator('p.hint').nth(1).textContent()) ?? '', /^Reached in \d+ hops\.$/);
    await checkPage(watched, 'mesh-traceroute-1280');
  });

  it('HTTP and TLS from a node: one row per node with the status and timings, the validity and issuer', async () => {
    const url = `https://www.valid.tls.test:${fakes.securePort}/new`;
    const http = await open(1280, `/tools/http?url=${encodeURIComponent(url)}&from=node:${NODE}`);
    await http.page.locator('#tool-status').getByText('Done: 1 node measured.').waitFor({ timeout: 10_000 });
    const [, , status, address, ...timings] = await cells(http.page, `tr[data-node="${NODE}"] > *`);
    assert.deepEqual([status, address], ['200', '127.0.0.1']);
    assert.equal(timings.length, 5);
    for (const timing of timings) assert.match(timing, /^[\d.]+ ms$/);
    await checkPage(http, 'mesh-http-1280');
    const tls = await open(375, `/tools/ssl?host=valid.tls.test&from=node:${NODE}`);
    await tls.page.locator('#tool-status').getByText('Done: 1 node measured.').waitFor({ timeout: 10_000 });
    const [, , valid, expires, issuer] = await cells(tls.page, `tr[data-node="${NODE}"] > *`);
    assert.equal(valid, 'valid');
    assert.match(expires ?? '', /^\d{4}-\d\d-\d\d$/);
    assert.match(issuer ?? '', /\S/);
    await checkPage(tls, 'mesh-ssl-375');
  });

  it('a place the mesh does not have is the API’s 400, in words, with the call that got it', async () => {
    const watched = await open(375, '/tools/dns?host=example.test&type=A&from=node:nowhere');
    const { page } = watched;
    const alert = page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^The API cannot use this input: .*nowhere/);
    assert.match(
      (await page.locator('.code code').first().textContent()) ?? '',
      /"locations":\[\{"node":"nowhere"\}\]/,
    );
    assert.equal(await page.locator('#tool-from option[value="node:nowhere"]').count(), 1, 'kept, as the URL said');
    await checkPage(watched, 'mesh-dns-400-375', { failedLoads: true });
  });

  it('/nodes: the node on the map and in the table, linked from the tools list', async () => {
    for (const width of WIDTHS) {
      const watched = await open(width, '/nodes');
      const { page } = watched;
      const [name, place, asn, tags, tools, families, raw] = await cells(page, `tr[data-node="${NODE}"] td`);
      // ASN and address families are what this machine's own data and interfaces say: only their shape is fixed.
      assert.deepEqual([name, place, tags], [NODE, 'Frankfurt, DE, EU', 'lab']);
      assert.match(asn ?? '', /^(unknown|AS\d+.*)$/);
      assert.match(tools ?? '', /\S/);
      assert.match(families ?? '', /^(yes|no) \/ (yes|no)$/);
      assert.match(raw ?? '', /^(yes|no)$/);
      assert.equal(await page.locator('svg.mesh-map circle.pin').count(), 1);
      assert.equal(await page.locator('svg.mesh-map circle.pin title').textContent(), `${NODE} (Frankfurt, DE)`);
      await checkPage(watched, `nodes-${width}`);
    }
    const tools = await open(375, '/tools');
    assert.equal(await tools.page.locator('.tool-list a[href="/nodes"]').count(), 1);
    await tools.page.context().close();
  });
});
