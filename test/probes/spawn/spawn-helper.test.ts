import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runTool } from '../../../src/probes/spawn/run-tool.ts';
import { createHelperSpawner } from '../../../src/probes/spawn/spawn-helper.ts';
import type { Spawner } from '../../../src/probes/spawn/spawner.ts';

// The helper process that starts the tools: output, exit status, failures to start, kills, and no
// tool left behind when the helper is closed or dies.

function run(spawner: Spawner, command: string, args: string[], signal = new AbortController().signal) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const outcome = runTool(spawner, command, args, {
    signal,
    onStdout: (chunk) => out.push(chunk),
    onStderr: (chunk) => err.push(chunk),
  });
  return { outcome, out: () => Buffer.concat(out).toString(), err: () => Buffer.concat(err).toString() };
}

const gone = (pid: number) => !existsSync(`/proc/${pid}`);
async function eventually(condition: () => boolean, ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}
const statFields = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
const parentOf = (pid: number) => Number(statFields(pid)[1]);
const stateOf = (pid: number) => {
  try {
    return statFields(pid)[0];
  } catch {
    return 'gone';
  }
};

test('stdout, stderr and the exit status come back as from a direct child, in the C locale', async () => {
  const helper = createHelperSpawner();
  const result = run(helper.spawner, 'sh', ['-c', 'echo "out $LC_ALL"; echo err >&2; exit 3']);
  assert.deepEqual(await result.outcome, { kind: 'exited', code: 3, signal: null });
  assert.equal(result.out(), 'out C\n');
  assert.equal(result.err(), 'err\n');
  await helper.close();
});

test('a tool that does not exist is reported as not started (ENOENT); the helper keeps working', async () => {
  const helper = createHelperSpawner();
  const missing = await run(helper.spawner, '/nonexistent/netinfo-tool', []).outcome;
  assert.equal(missing.kind, 'not-started');
  assert.equal(missing.kind === 'not-started' && missing.error.code, 'ENOENT');
  assert.deepEqual(await run(helper.spawner, 'true', []).outcome, { kind: 'exited', code: 0, signal: null });
  await helper.close();
});

test('aborting kills the tool: the run ends as stopped and the process is gone', async () => {
  const helper = createHelperSpawner();
  const stop = new AbortController();
  let pid = 0;
  const spawner: Spawner = (command, args) => {
    const child = helper.spawner(command, args);
    child.once('spawn', () => {
      pid = child.pid ?? 0;
      stop.abort();
    });
    return child;
  };
  assert.deepEqual(await run(spawner, 'sleep', ['30'], stop.signal).outcome, { kind: 'stopped' });
  assert.ok(pid > 0 && (await eventually(() => gone(pid))), `sleep ${pid} survived`);
  await helper.close();
});

test('closing the helper, or the helper dying, leaves no tool running', async () => {
  for (const how of ['close', 'helper killed'] as const) {
    const helper = createHelperSpawner();
    let pid = 0;
    const started = new Promise<void>((resolve) => {
      const spawner: Spawner = (command, args) => {
        const child = helper.spawner(command, args);
        child.once('spawn', () => {
          pid = child.pid ?? 0;
          resolve();
        });
        return child;
      };
      void run(spawner, 'sleep', ['30']).outcome;
    });
    await started;
    if (how === 'close') {
      await helper.close();
      assert.ok(await eventually(() => gone(pid)), `close: sleep ${pid} survived`);
    } else {
      // The tool now belongs to init: the server kills it, and reaping it is init's job (this
      // machine's init reaps about once a second), so it may show as a zombie for a moment.
      process.kill(parentOf(pid), 'SIGKILL');
      assert.ok(await eventually(() => gone(pid) || stateOf(pid) === 'Z'), `helper killed: sleep ${pid} survived`);
    }
    await helper.close();
  }
});

test('a tool stopped while it waits for its turn to be spawned is never started', async () => {
  const helper = createHelperSpawner();
  const stop = new AbortController();
  const spawner: Spawner = (command, args) => {
    const child = helper.spawner(command, args);
    stop.abort(); // the kill request reaches the helper before its spawn turn comes
    return child;
  };
  const marker = `netinfo-never-started-${process.pid}`;
  const started = performance.now();
  const { outcome } = run(spawner, 'sh', ['-c', `exec sleep 30 # ${marker}`], stop.signal);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(spawnSync('pgrep', ['-f', marker]).stdout.toString().trim(), '', 'the tool was started after all');
  assert.deepEqual(await outcome, { kind: 'stopped' });
  assert.ok(performance.now() - started < 1000, 'the run did not end at once');
  await helper.close();
});
