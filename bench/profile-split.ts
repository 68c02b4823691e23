// The main thread's busy time in a CPU profile of the batch route, split into its parts: each sample
// goes to the first part (in this order) that any frame of its stack belongs to. Used by
// bench/batch-server.ts; `node bench/profile-split.ts <file.cpuprofile> [main-thread µs an item]`.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const inFile = (file: string) => (frame: CallFrame) => frame.url.endsWith(file);
const PARTS: [string, (frame: CallFrame) => boolean][] = [
  ['answerBatch (answers, the body buffer)', (frame) => frame.functionName === 'answerBatch'],
  ['parseBatchBody (JSON.parse, checks)', (frame) => frame.functionName === 'parseBatchBody'],
  [
    'distinct items (a Set, for the rate limit and the answer)',
    (frame) => ['batchCost', 'distinctItems', 'distinctBodyItems'].includes(frame.functionName),
  ],
  [
    'writing the answer (headers, socket writev)',
    (frame) => ['writePayload', 'writeHead', '_writeGeneric', 'writev'].includes(frame.functionName),
  ],
  ['onSend hooks (metrics, control characters, ...)', (frame) => frame.functionName === 'onSendHookRunner'],
  ['the handler otherwise (before 1ea1517: its own Set)', (frame) => inFile('src/ipinfo/plugin.ts')(frame)],
  ['other hooks and routing (request start, limits, ...)', (frame) => frame.url.includes('/src/')],
  [
    'reading the body (socket, content-type parser)',
    (frame) => /content-type-parser|onStreamRead/.test(frame.url + frame.functionName),
  ],
  ["Node's HTTP and Fastify otherwise", (frame) => /node:_http|fastify|find-my-way|node:net/.test(frame.url)],
  ['garbage collection (on the main thread)', (frame) => frame.functionName === '(garbage collector)'],
];

/**
 * Prints each part's share of the busy samples, and its µs an item given the main thread's CPU an
 * item. Only seconds in which the process was busy at least half the time count, after its first
 * idle second: the load, not the start-up.
 */
export function splitProfile(file: string, mainUsPerItem = 0): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const idle = (id: number) => frames.get(id)?.functionName === '(idle)';
  const seconds = new Map<number, { busy: number; all: number }>();
  const at: number[] = [];
  let clock = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    clock += profile.timeDeltas[i] ?? 0;
    const s = Math.floor(clock / 1e6);
    at.push(s);
    const entry = seconds.get(s) ?? { busy: 0, all: 0 };
    // A sample's time is the delta to the next one.
    const delta = profile.timeDeltas[i + 1] ?? 0;
    entry.all += delta;
    if (!idle(profile.samples[i] as number)) entry.busy += delta;
    seconds.set(s, entry);
  }
  const share = (s: number) => ((entry) => (entry ? entry.busy / Math.max(entry.all, 1) : 0))(seconds.get(s));
  const firstIdle = [...seconds.keys()].sort((a, b) => a - b).find((s) => share(s) < 0.05) ?? 0;
  const sums = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    const s = at[i] as number;
    if (s <= firstIdle || share(s) < 0.5 || idle(id)) continue;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const stack: CallFrame[] = [];
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      stack.push(frames.get(node) as CallFrame);
    }
    const part = PARTS.find(([, belongs]) => stack.some(belongs))?.[0] ?? 'other (native, (program))';
    sums.set(part, (sums.get(part) ?? 0) + delta);
    busy += delta;
  }
  console.log(`\nmain thread, ${(busy / 1e6).toFixed(1)} s busy under load in ${file}:`);
  for (const [part, time] of [...sums].sort((a, b) => b[1] - a[1])) {
    const us = mainUsPerItem > 0 ? `${((time / busy) * mainUsPerItem).toFixed(2).padStart(6)} µs  ` : '';
    console.log(`  ${((100 * time) / busy).toFixed(1).padStart(5)}%  ${us}${part}`);
  }
}

if (import.meta.main) splitProfile(process.argv[2] as string, Number(process.argv[3] ?? 0));
