import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { FastifyInstance } from 'fastify';
import { formatServer } from '../../src/dns/servers.ts';
import { escapeControlCharacters } from '../../src/http/control-characters.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';

// Issue 28, item 12: a reverse name holding ESC, OSC and BEL bytes (a terminal escape that retitles
// the window, clears the screen, writes the clipboard) reached `curl host/hostname` verbatim.
// Every text/plain answer now writes C0 controls (but newline and tab), DEL and C1 as \xNN.

const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u009b31m\r\u007fx';
const PTR: Answer[] = [
  { type: 'PTR', name: '160.69.2.81.in-addr.arpa', ttl: 3600, class: 'IN', data: `${HOSTILE}.isp.test` },
];
const CURL = { 'user-agent': 'curl/8.5.0', accept: '*/*' };

/** Bytes a terminal would obey: C0 but newline and tab, DEL, and C1 (as UTF-8, C2 80 to C2 9F). */
function terminalControls(body: Buffer): number[] {
  const found: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const byte = body[i] as number;
    if ((byte < 0x20 && byte !== 0x0a && byte !== 0x09) || byte === 0x7f) found.push(byte);
    if (byte === 0xc2 && (body[i + 1] as number) >= 0x80 && (body[i + 1] as number) <= 0x9f) found.push(0x80);
  }
  return found;
}

describe('no terminal control reaches a text/plain answer', { timeout: 60_000 }, () => {
  let dns: FakeDnsServer;
  let app: FastifyInstance;
  before(async () => {
    dns = await startFakeDnsServer(recordsHandler(PTR, 'in-addr.arpa'));
    app = await buildTestApp({ DNS_SERVERS: formatServer(dns.server), HOSTNAME_TIMEOUT_MS: '1000' });
    // Routes that set text/plain themselves, as any future route could: a string, bytes, a stream,
    // and a bare string (which Fastify types text/plain).
    app.get('/test/plain-string', (_request, reply) => reply.type('text/plain').send(`${HOSTILE}\n`));
    app.get('/test/plain-buffer', (_request, reply) =>
      reply.type('Text/Plain; charset=utf-8').send(Buffer.from(`${HOSTILE}\n`)),
    );
    app.get('/test/plain-stream', (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send(Readable.from([Buffer.from(HOSTILE).subarray(0, 9), Buffer.from(HOSTILE).subarray(9)])),
    );
    app.get('/test/bare-string', (_request, reply) => reply.send(HOSTILE));
  });
  after(async () => {
    await app?.close();
    await dns?.close();
  });

  it('a PTR holding ESC, OSC, BEL, CR, DEL and C1 bytes, through /hostname, arrives escaped', async () => {
    const response = await app.inject({ url: '/hostname?ip=81.2.69.160', headers: CURL });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(terminalControls(response.rawPayload), [], JSON.stringify(response.body));
    assert.equal(response.body, '\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\x0d\\x7fx.isp.test\n');
  });

  it('the JSON of the same name (`curl host/json`) keeps its value but carries no raw DEL or C1', async () => {
    for (const url of ['/json?ip=81.2.69.160', '/api/v1/json/81.2.69.160']) {
      const response = await app.inject({ url, headers: CURL });
      assert.deepEqual(terminalControls(response.rawPayload), [], url);
      assert.equal(response.json().hostname, `${HOSTILE}.isp.test`, `${url}: the same string to a JSON reader`);
    }
  });

  it('routes that set text/plain themselves cannot bypass it (string, bytes, stream, bare string)', async () => {
    for (const url of ['/test/plain-string', '/test/plain-buffer', '/test/plain-stream', '/test/bare-string']) {
      const response = await app.inject({ url });
      assert.match(String(response.headers['content-type']), /^text\/plain/i, url);
      assert.deepEqual(terminalControls(response.rawPayload), [], `${url}: ${JSON.stringify(response.body)}`);
      assert.ok(response.body.startsWith('\\x1b]0;owned\\x07'), url);
    }
  });

  it('newline and tab stay; text without controls is returned as it was', () => {
    assert.equal(escapeControlCharacters('a\tb\nc'), 'a\tb\nc');
    assert.equal(escapeControlCharacters('Zürich – 東京'), 'Zürich – 東京');
    assert.equal(escapeControlCharacters('\u0000\u001f\u0080\u009f\u00a0'), '\\x00\\x1f\\x80\\x9f\u00a0');
  });
});
