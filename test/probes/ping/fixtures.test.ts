import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { type PingLineEvent, parsePingLine } from '../../../src/probes/ping/parse.ts';
import { summarisePing, unansweredSeqs } from '../../../src/probes/ping/summary.ts';
import { forEachLine } from '../../../src/probes/spawn/read-lines.ts';
import { halfLineChunks, linesOf, loadCapturedOutputs } from '../../support/captured-output.ts';

const captures = loadCapturedOutputs('ping');

function parseAll(lines: string[]): PingLineEvent[] {
  return lines.map(parsePingLine).filter((event) => event !== null);
}

test('every captured ping output parses to its expected events, unanswered seqs and done fields', () => {
  assert.ok(captures.length >= 10, 'fixtures missing');
  for (const { scenario, stdout, stderr, expected } of captures) {
    const events = parseAll([...linesOf(stdout), ...linesOf(stderr)]);
    assert.deepEqual(events, expected.events, `${scenario}: events`);
    assert.deepEqual(unansweredSeqs(events), expected.unanswered, `${scenario}: unanswered`);
    assert.deepEqual(summarisePing(events), expected.done, `${scenario}: done`);
  }
});

test('the same events come out when a fake child process delivers each output in half-line chunks', async () => {
  for (const { scenario, stdout, stderr, expected } of captures) {
    const child = { stdout: Readable.from(halfLineChunks(stdout)), stderr: Readable.from(halfLineChunks(stderr)) };
    const stdoutLines: string[] = [];
    const stderrLines: string[] = [];
    await Promise.all([
      forEachLine(child.stdout, (line) => stdoutLines.push(line)),
      forEachLine(child.stderr, (line) => stderrLines.push(line)),
    ]);
    assert.deepEqual(parseAll([...stdoutLines, ...stderrLines]), expected.events, scenario);
  }
});
