// The README's endpoint table says what each endpoint is for; the OpenAPI document (from the route
// schemas) says everything else. This keeps the two from drifting: every operation of the document
// has its row, every row names a real operation, and each row links to the section of /docs (the
// operation's tag) that describes it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildTestApp } from '../support/app.ts';

const TABLE_START = '<!-- endpoint-table:start';
const TABLE_END = '<!-- endpoint-table:end -->';
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

interface Row {
  line: string;
  /** `GET /api/v1/dns`: method and path, the query string dropped. */
  operations: string[];
  /** The tag of the /docs section the row links to; null for a row that links none (—). */
  tag: string | null;
}

/** The rows of the README's endpoint table, read from the code spans of their first and last cells. */
function endpointRows(readme: string): Row[] {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  assert.ok(start >= 0 && end > start, 'README.md lacks the endpoint-table markers');
  return readme
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.slice(2, -2).split(' | ');
      const operations = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map(([, span = '']) => {
        const match = /^(GET|HEAD|POST|PUT|PATCH|DELETE) (\/[^?\s]*)(\?\S*)?$/.exec(span);
        assert.ok(match, `not "METHOD /path": \`${span}\` in ${line}`);
        return `${match[1]} ${match[2]}`;
      });
      const reference = cells.at(-1)?.trim() ?? '';
      const link = /^`\/docs#\/([a-z-]+)`$/.exec(reference);
      assert.ok(link || reference === '—', `the last cell is neither \`/docs#/<tag>\` nor —: ${line}`);
      return { line, operations, tag: link?.[1] ?? null };
    });
}

describe('the README endpoint table against the OpenAPI document', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = endpointRows(readme);
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  /** `GET /api/v1/dns` -> its tags. */
  const documented = new Map<string, string[]>();

  before(async () => {
    app = await buildTestApp();
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { tags?: string[] }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (METHODS.includes(method)) documented.set(`${method.toUpperCase()} ${path}`, operation.tags ?? []);
      }
    }
  });
  after(() => app.close());

  it('lists every operation of the OpenAPI document', () => {
    const listed = new Set(rows.flatMap((row) => row.operations));
    const missing = [...documented.keys()].filter((operation) => !listed.has(operation));
    assert.deepEqual(missing, [], 'operations the README endpoint table lacks');
  });

  it('lists only operations that exist: in the OpenAPI document, or answering when asked (the document itself)', async () => {
    for (const operation of rows.flatMap((row) => row.operations)) {
      if (documented.has(operation)) continue;
      const [method, path] = operation.split(' ');
      assert.equal(method, 'GET', `${operation} is in no OpenAPI path`);
      const response = await app.inject({ method: 'GET', url: path });
      assert.equal(response.statusCode, 200, `${operation} is in no OpenAPI path and answers ${response.statusCode}`);
    }
  });

  it("links each row to the /docs section of its operations' tag, and only rows outside the document link none", () => {
    for (const row of rows) {
      const tags = new Set(row.operations.flatMap((operation) => documented.get(operation) ?? []));
      if (row.tag === null)
        assert.equal(tags.size, 0, `row with documented operations links no /docs section: ${row.line}`);
      else assert.deepEqual([...tags], [row.tag], `row links the wrong /docs section: ${row.line}`);
    }
  });

  it('names in every /docs#/<tag> link of the README a tag that some operation has', () => {
    const tags = new Set([...documented.values()].flat());
    for (const [, tag = ''] of readme.matchAll(/\/docs#\/([a-z-]+)/g))
      assert.ok(tags.has(tag), `no operation has the tag ${tag}`);
  });
});
