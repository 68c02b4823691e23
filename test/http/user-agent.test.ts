import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseUserAgent, rootAnswerKind } from '../../src/http/user-agent.ts';

it("reads a User-Agent as ifconfig.co does (echoip's own parser cases)", () => {
  const cases: [string, string, string, string][] = [
    ['curl/', 'curl', '', ''],
    ['curl/foo', 'curl', '', 'foo'],
    ['curl/7.26.0', 'curl', '7.26.0', ''],
    ['Wget/1.13.4 (linux-gnu)', 'Wget', '1.13.4', '(linux-gnu)'],
    ['Wget', 'Wget', '', ''],
    ['fetch libfetch/2.0', 'fetch libfetch', '2.0', ''],
    ['Go 1.1 package http', 'Go', '', '1.1 package http'],
    ['Mikrotik/6.x Fetch', 'Mikrotik', '6.x', 'Fetch'],
  ];
  for (const [raw, product, version, comment] of cases)
    assert.deepEqual(parseUserAgent(raw), { product, version, comment, raw }, raw);
});

it('GET / answers JSON, text or the page in ifconfig.co order, and text where ifconfig.co would send its page', () => {
  assert.equal(rootAnswerKind('application/json', 'Mozilla/5.0'), 'json');
  assert.equal(rootAnswerKind('application/json, */*;q=0.5', 'HTTPie/3.2.2'), 'text', "HTTPie's default Accept");
  assert.equal(rootAnswerKind('text/html', 'curl/8.5.0'), 'text', 'a known command-line client, whatever it accepts');
  assert.equal(rootAnswerKind('text/html,application/xhtml+xml', 'Mozilla/5.0'), 'html');
  assert.equal(rootAnswerKind('application/json, text/plain, */*', 'axios/1.7.0'), 'json');
  assert.equal(rootAnswerKind(undefined, undefined), 'text', 'no User-Agent, no Accept: one line');
  assert.equal(rootAnswerKind('*/*', 'python-requests/2.31.0'), 'text');
});
