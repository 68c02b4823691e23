import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTlsTarget, type TlsTarget } from '../../src/tls/target.ts';

test('parseTlsTarget: what people paste into /ssl?host=, and what is checked', () => {
  const name = (host: string, port: number | null = null): TlsTarget => ({ host, port, sni: host });
  const address = (host: string, port: number | null = null): TlsTarget => ({ host, port, sni: null });
  const cases: [why: string, input: string, expected: TlsTarget][] = [
    ['a plain name', 'example.com', name('example.com')],
    ['upper case and a trailing dot, as DNS writes names', 'WWW.Example.COM.', name('www.example.com')],
    ['white space around a paste', '  example.com \n', name('example.com')],
    ['an IDN, checked and sent as SNI in punycode', 'bücher.example', name('xn--bcher-kva.example')],
    ['host:port', 'example.com:8443', name('example.com', 8443)],
    ['a pasted URL: path, query and fragment ignored', 'https://example.com/path?q=1#top', name('example.com')],
    ['a pasted URL with a port', 'https://example.com:8443/x', name('example.com', 8443)],
    ['the scheme in upper case', 'HTTPS://Example.com', name('example.com')],
    ['a URL with nothing after the host', 'https://example.com', name('example.com')],
    ['an IPv4 address: no SNI', '192.0.2.1', address('192.0.2.1')],
    ['an IPv4 address with a trailing dot', '192.0.2.1.', address('192.0.2.1')],
    ['an IPv4 address and port', '192.0.2.1:443', address('192.0.2.1', 443)],
    ['a bare IPv6 address (its colons are not a port)', '2001:DB8::0:1', address('2001:db8::1')],
    ['an IPv6 address in brackets', '[2001:db8::1]', address('2001:db8::1')],
    ['an IPv6 address in brackets with a port', '[::1]:443', address('::1', 443)],
    ['an IPv6 URL with a port', 'https://[2001:db8::1]:8443/', address('2001:db8::1', 8443)],
    ['IPv4-mapped IPv6 is the IPv4 address', '::ffff:192.0.2.1', address('192.0.2.1')],
    // The policy, not the parser, refuses it (unless ALLOW_PRIVATE_TARGETS).
    ['a forbidden address still parses', '127.0.0.2', address('127.0.0.2')],
    ['a leading zero in a port is still decimal', 'example.com:0443', name('example.com', 443)],
  ];
  for (const [why, input, expected] of cases) {
    assert.deepEqual(parseTlsTarget(input), { ok: true, target: expected }, why);
  }
});

test('parseTlsTarget refuses what is not a host, with a reason for the 400', () => {
  const refused: [why: string, input: string, reason: RegExp][] = [
    ['empty', '', /is empty/],
    ['another scheme: port 80 does not speak TLS', 'http://example.com/', /is a http:\/\/ URL/],
    ['a URL without a host', 'https:///path', /without a host/],
    ['a user name in the URL', 'https://user@example.com/', /user name/],
    ['a port of zero', 'example.com:0', /port "0"/],
    ['a port over 65535', 'example.com:65536', /port "65536"/],
    ['a port in hex', 'example.com:0x1bb', /port "0x1bb"/],
    ['a signed port', 'example.com:+443', /port "\+443"/],
    ['an empty port', 'example.com:', /port ""/],
    ['a port without a host', ':443', /no host before the port/],
    ['brackets around a name', '[example.com]:443', /no IPv6 address inside/],
    ['an unclosed bracket', '[::1:443', /without "\]"/],
    ['text after the bracket', '[::1]x', /after "\]"/],
    ['an IPv6 zone index', 'fe80::1%eth0', /zone index/],
    ['white space inside', 'bad host', /white space/],
    ['an underscore', '_srv.example.com', /cannot contain "_"/],
    ['the root', '.', /root/],
    // URL parsers read these as 127.0.0.1: refused, never checked as that address.
    ['an octal IPv4 form', '0177.0.0.1', /ends in a number/],
    ['a short IPv4 form', '127.1', /ends in a number/],
    ['a short IPv4 form in a URL', 'https://127.1/', /ends in a number/],
    // Regression (issue 18): IDNA turned these into 127.0.0.2 before the policy saw them.
    ['fullwidth digits', '１２７.０.０.２', /non-ASCII numeric character "１"/],
    ['fullwidth digits in a URL', 'https://１２７.０.０.２/', /non-ASCII numeric character/],
    ['circled digits', '①②⑦.0.0.2', /non-ASCII numeric character "①"/],
    ['a fullwidth digit in a port-bearing name', 'ex１.com:443', /non-ASCII numeric character/],
  ];
  for (const [why, input, reason] of refused) {
    const result = parseTlsTarget(input);
    assert.equal(result.ok, false, why);
    if (!result.ok) assert.match(result.reason, reason, why);
  }
});
