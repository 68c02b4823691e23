import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePortRanges } from '../../src/httpcheck/config.ts';
import { parseCheckUrl, redirectTarget } from '../../src/httpcheck/target-url.ts';

const ports = parsePortRanges(undefined);

describe('the URL of /api/v1/http and its redirects', () => {
  it('reads host, port and scheme; the fragment is never sent', () => {
    const cases: [string, string, string, number, boolean][] = [
      ['https://Example.COM/a?b=1#top', 'https://example.com/a?b=1', 'example.com', 443, true],
      ['http://example.com', 'http://example.com/', 'example.com', 80, false],
      ['http://[2001:db8::1]:8080/x', 'http://[2001:db8::1]:8080/x', '2001:db8::1', 8080, false],
      ['  https://192.0.2.1:8443/  ', 'https://192.0.2.1:8443/', '192.0.2.1', 8443, true],
    ];
    for (const [input, href, host, port, secure] of cases) {
      const parsed = parseCheckUrl(input, ports);
      assert.ok(parsed.ok, input);
      assert.deepEqual(
        [parsed.target.url.href, parsed.target.host, parsed.target.port, parsed.target.secure],
        [href, host, port, secure],
        input,
      );
    }
  });

  it('issue 28: a URL written without its scheme is told to add one, not read as the scheme "host:"', () => {
    for (const input of ['host:8081', 'example.com', 'example.com/a?b=1', 'localhost:8081/x', '[2001:db8::1]:8080/']) {
      assert.deepEqual(
        parseCheckUrl(input, ports),
        { ok: false, reason: `has no scheme: write http://${input} or https://${input}` },
        input,
      );
    }
    for (const [input, reason] of [
      ['ftp://example.com/', 'is a ftp: URL; only http:// and https:// URLs are checked'],
      ['mailto:ann@example.com', 'is a mailto: URL; only http:// and https:// URLs are checked'],
      ['javascript:alert(1)', 'is a javascript: URL; only http:// and https:// URLs are checked'],
    ]) {
      assert.deepEqual(parseCheckUrl(input as string, ports), { ok: false, reason }, input);
    }
  });

  it('resolves a Location as a browser does, dropping credentials and refusing other schemes and ports', () => {
    const base = new URL('https://example.com/dir/page');
    const relative = redirectTarget('../other?q#f', base, ports);
    assert.equal(relative.ok && relative.target.url.href, 'https://example.com/other?q');
    const credentials = redirectTarget('http://user:secret@example.net:8080/', base, ports);
    assert.equal(credentials.ok && credentials.target.url.href, 'http://example.net:8080/');
    const ftp = redirectTarget('ftp://example.com/', base, ports);
    assert.equal(ftp.ok ? null : ftp.reason, 'is a ftp: URL; only http:// and https:// URLs are checked');
    const smtp = redirectTarget('//example.com:25/', base, ports);
    assert.match(smtp.ok ? '' : smtp.reason, /^port 25 is not one the HTTP check connects to/);
    const invalid = redirectTarget('http://exa mple.com/', base, ports);
    assert.match(invalid.ok ? '' : invalid.reason, /is not a valid URL/);
  });
});
