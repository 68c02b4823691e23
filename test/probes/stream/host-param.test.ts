import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseProbeHost } from '../../../src/probes/stream/host-param.ts';

test('accepted hosts and the form they are resolved and shown in', () => {
  const cases: [string, string, 4 | 6 | null][] = [
    ['example.com', 'example.com', null],
    ['Example.COM.', 'example.com', null],
    ['bücher.example', 'xn--bcher-kva.example', null],
    ['localhost', 'localhost', null],
    ['192.0.2.1', '192.0.2.1', 4],
    ['2001:DB8::0:1', '2001:db8::1', 6],
    ['[2001:db8::1]', '2001:db8::1', 6],
    ['::ffff:192.0.2.1', '192.0.2.1', 4],
  ];
  for (const [input, host, literal] of cases) {
    assert.deepEqual(parseProbeHost(input), { ok: true, host, literal }, input);
  }
});

test('refused hosts: option-like, shell metacharacters, control characters, over-long, zone ids', () => {
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['-f', /starts or ends with "-"/],
    ['--flood', /starts or ends with "-"/],
    ['example.com -f', /white space/],
    ['a;reboot', /character ";"/],
    ['$(id)', /character "\$"/],
    ['a|b', /character "\|"/],
    ['127.0.0.1\n-f', /control character "\\n"/],
    ['example.com\n', /control character "\\n"/],
    ['tab\there', /control character "\\t"/],
    ['nul\u0000', /control character/],
    [`${'a'.repeat(63)}.`.repeat(5), /longer than 253/],
    ['a'.repeat(300), /longer than 253/],
    [`${'a'.repeat(64)}.com`, /longer than 63/],
    ['fe80::1%eth0', /zone index/],
    ['[example.com]', /brackets/],
    ['.', /root/],
    ['a..b', /empty label/],
    ['http://example.com/', /character ":"/],
    // Regression (issue 18): IDNA reads these as 127.0.0.1; a host's digits are 0-9.
    ['１２７.０.０.１', /non-ASCII numeric character "１"/],
    ['①②⑦.0.0.1', /non-ASCII numeric character "①"/],
  ];
  for (const [input, reason] of refused) {
    const result = parseProbeHost(input);
    assert.equal(result.ok, false, JSON.stringify(input));
    if (!result.ok) assert.match(result.reason, reason, JSON.stringify(input));
  }
});
