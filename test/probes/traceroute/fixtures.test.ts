import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { forEachLine } from '../../../src/probes/spawn/read-lines.ts';
import { parseTracerouteLine, type TracerouteLine } from '../../../src/probes/traceroute/parse.ts';
import { summariseTraceroute } from '../../../src/probes/traceroute/summary.ts';
import { halfLineChunks, linesOf, loadCapturedOutputs } from '../../support/captured-output.ts';

const captures = loadCapturedOutputs('traceroute');

function parseAll(lines: string[]): TracerouteLine[] {
  return lines.map(parseTracerouteLine).filter((line) => line !== null);
}

test('every captured traceroute output parses to its expected lines and done fields', () => {
  assert.ok(captures.length >= 10, 'fixtures missing');
  for (const { scenario, stdout, stderr, expected } of captures) {
    const lines = parseAll([...linesOf(stdout), ...linesOf(stderr)]);
    assert.deepEqual(lines, expected.events, `${scenario}: lines`);
    assert.deepEqual(summariseTraceroute(lines), expected.done, `${scenario}: done`);
  }
});

test('the same lines come out when a fake child process delivers each output in half-line chunks', async () => {
  for (const { scenario, stdout, stderr, expected } of captures) {
    const collected: string[] = [];
    const errors: string[] = [];
    await Promise.all([
      forEachLine(Readable.from(halfLineChunks(stdout)), (line) => collected.push(line)),
      forEachLine(Readable.from(halfLineChunks(stderr)), (line) => errors.push(line)),
    ]);
    assert.deepEqual(parseAll([...collected, ...errors]), expected.events, scenario);
  }
});
