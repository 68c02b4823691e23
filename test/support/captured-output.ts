// Loads the captured tool outputs under test/fixtures/<tool>/ (see test/fixtures/README.md) and cuts
// them into the awkward chunks a real pipe may deliver.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface CapturedOutput {
  scenario: string;
  stdout: string;
  stderr: string;
  expected: { events: unknown[]; done: unknown; unanswered?: number[] };
}

const fixturesDir = new URL('../fixtures/', import.meta.url);

export function loadCapturedOutputs(tool: string): CapturedOutput[] {
  const dir = new URL(`${tool}/`, fixturesDir);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const scenario = name.slice(0, -'.json'.length);
      const stderrFile = new URL(`${scenario}.stderr.txt`, dir);
      return {
        scenario,
        stdout: readFileSync(new URL(`${scenario}.txt`, dir), 'utf8'),
        stderr: existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : '',
        expected: JSON.parse(readFileSync(new URL(name, dir), 'utf8')),
      };
    });
}

/** The text's lines (a final newline does not make an extra empty line). */
export function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Chunks that end in the middle of every line (and split the line break from its line's end). */
export function halfLineChunks(text: string): Buffer[] {
  const chunks: Buffer[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    const middle = Math.floor(line.length / 2);
    for (const part of [line.slice(0, middle), line.slice(middle)]) if (part !== '') chunks.push(Buffer.from(part));
  }
  return chunks;
}

/** The exit code a capture's `.cmd` file recorded (`# exit code N`). */
export function capturedExitCode(tool: string, scenario: string): number {
  const cmd = readFileSync(new URL(`${tool}/${scenario}.cmd`, fixturesDir), 'utf8');
  const match = /^# exit code (\d+)$/m.exec(cmd);
  if (!match) throw new Error(`${scenario}.cmd has no exit code`);
  return Number(match[1]);
}

/** The command line a capture's `.cmd` file recorded, as arguments. */
export function capturedCommand(tool: string, scenario: string): string[] {
  const cmd = readFileSync(new URL(`${tool}/${scenario}.cmd`, fixturesDir), 'utf8');
  // The tool may run under a wrapper (`setpriv ... traceroute ...`): its arguments start at its name.
  const line = cmd.split('\n').find((text) => !text.startsWith('#') && ` ${text}`.includes(` ${tool} `));
  if (!line) throw new Error(`${scenario}.cmd has no ${tool} command line`);
  const words = line.split(' ');
  return words.slice(words.indexOf(tool));
}
