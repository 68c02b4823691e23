// Every captured ping and traceroute output (test/fixtures/<tool>/) through the production pipeline,
// as a session feeds it: the output in half-line chunks through the line splitter (traceroute's
// stdout through its hop reader), the parser, and the progress that turns lines into `done`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMtrLine } from '../../src/probes/mtr/parse.ts';
import { createMtrProgress } from '../../src/probes/mtr/progress.ts';
import { parsePingLine } from '../../src/probes/ping/parse.ts';
import { createPingProgress } from '../../src/probes/ping/progress.ts';
import { createLineSplitter } from '../../src/probes/spawn/line-splitter.ts';
import { createHopReader } from '../../src/probes/traceroute/hop-reader.ts';
import { parseTracerouteLine } from '../../src/probes/traceroute/parse.ts';
import { createTracerouteProgress } from '../../src/probes/traceroute/progress.ts';
import {
  type CapturedOutput,
  capturedCommand,
  capturedExitCode,
  halfLineChunks,
  loadCapturedOutputs,
} from '../support/captured-output.ts';

/** What the pipeline made of one capture: the parsed lines, and the closing events or null (the run failed). */
interface PipelineResult {
  lines: unknown[];
  closing: unknown;
  toolError: string | null;
}

/** The value after a flag of the captured command line (`-c 4` -> 4). */
function flagValue(command: string[], flag: string): number {
  const index = command.indexOf(flag);
  assert.ok(index > 0, `${flag} missing from ${command.join(' ')}`);
  return Number(command[index + 1]);
}

function eachLine(text: string, onLine: (line: string) => void): void {
  const splitter = createLineSplitter();
  for (const chunk of halfLineChunks(text)) splitter.push(chunk).forEach(onLine);
  splitter.end().forEach(onLine);
}

function runPing(capture: CapturedOutput, command: string[]): PipelineResult {
  const progress = createPingProgress(flagValue(command, '-c'));
  const lines: unknown[] = [];
  const handle = (text: string) => {
    const line = parsePingLine(text);
    if (line === null) return;
    lines.push(line);
    progress.accept(line);
  };
  eachLine(capture.stdout, handle);
  eachLine(capture.stderr, handle);
  const closing = progress.finish();
  return {
    lines,
    toolError: progress.toolError,
    // The timeouts ping never printed (its last request's), then `done`.
    closing: closing && {
      unanswered: closing.flatMap((event) => (event.type === 'timeout' ? [event.seq] : [])),
      done: closing.at(-1),
    },
  };
}

function runTraceroute(capture: CapturedOutput, command: string[], exitCode: number): PipelineResult {
  const progress = createTracerouteProgress({
    destination: command.at(-1) as string,
    maxHops: flagValue(command, '-m'),
  });
  const reader = createHopReader(flagValue(command, '-q'));
  const lines: unknown[] = [];
  const handle = (line: ReturnType<typeof parseTracerouteLine>) => {
    if (line === null) return;
    lines.push(line);
    progress.accept(line);
  };
  for (const chunk of halfLineChunks(capture.stdout)) {
    reader.push(chunk).forEach(handle);
    // The session asks for the unfinished line's hop whenever the output pauses: here, after every chunk.
    handle(reader.takeCompleteHop());
  }
  reader.end().forEach(handle);
  eachLine(capture.stderr, (text) => handle(parseTracerouteLine(text)));
  return { lines, toolError: progress.toolError, closing: progress.finish(exitCode) };
}

function runMtr(capture: CapturedOutput, command: string[], exitCode: number): PipelineResult {
  const progress = createMtrProgress({ destination: command.at(-1) as string, maxHops: flagValue(command, '-m') });
  const lines: unknown[] = [];
  const handle = (text: string) => {
    const line = parseMtrLine(text);
    if (line === null) return;
    lines.push(line);
    progress.accept(line);
  };
  eachLine(capture.stdout, handle);
  eachLine(capture.stderr, handle);
  return { lines, toolError: progress.toolError, closing: progress.finish(exitCode) };
}

/** Ping's `done` also counts the duplicate replies it dropped: as many as ping's own statistics line says. */
function pingClosing(expected: CapturedOutput['expected']): unknown {
  const statistics = expected.events.find((event) => (event as { type: string }).type === 'statistics');
  const { duplicates } = statistics as { duplicates: number };
  return { unanswered: expected.unanswered, done: { type: 'done', ...(expected.done as object), duplicates } };
}

/** One row per tool: its production pipeline, and the closing its captures' `.json` expect (when `done` is not null). */
const pipelines: {
  tool: string;
  run: (capture: CapturedOutput, command: string[], exitCode: number) => PipelineResult;
  expectedClosing: (expected: CapturedOutput['expected']) => unknown;
  /** How many captures the tool has at least (so that a lost fixture folder fails). */
  minCaptures: number;
}[] = [
  { tool: 'ping', run: runPing, expectedClosing: pingClosing, minCaptures: 10 },
  {
    tool: 'traceroute',
    run: runTraceroute,
    expectedClosing: (expected) => ({ type: 'done', ...(expected.done as object) }),
    minCaptures: 10,
  },
  // mtr's closing is the final hop table (without hostnames: the session adds them) and `reached`.
  { tool: 'mtr', run: runMtr, expectedClosing: (expected) => expected.done, minCaptures: 8 },
];

test('every captured output, in half-line chunks, gives its expected lines and done through the production pipeline', () => {
  for (const { tool, run, expectedClosing, minCaptures } of pipelines) {
    const captures = loadCapturedOutputs(tool);
    assert.ok(captures.length >= minCaptures, `${tool} fixtures missing`);
    for (const capture of captures) {
      const name = `${tool}/${capture.scenario}`;
      const command = capturedCommand(tool, capture.scenario);
      const result = run(capture, command, capturedExitCode(tool, capture.scenario));
      assert.deepEqual(result.lines, capture.expected.events, `${name}: lines`);
      const expected = capture.expected.done === null ? null : expectedClosing(capture.expected);
      assert.deepEqual(result.closing, expected, `${name}: done`);
      // A run without `done` (a name error) has the tool's complaint, for the stream's error event.
      if (result.closing === null) assert.ok(result.toolError, `${name}: tool error`);
    }
  }
});
