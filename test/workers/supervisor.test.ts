import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { stampOf } from '../../src/ipinfo/data/data-files.ts';
import type { ToWorker } from '../../src/workers/link.ts';
import { createSharedFiles } from '../../src/workers/shared-files.ts';
import { type SupervisorOptions, startSupervisor, type WorkerHandle } from '../../src/workers/supervisor.ts';

/** A worker as the supervisor sees one; the test says when it listens, fails or exits. */
class FakeWorker extends EventEmitter implements WorkerHandle {
  static nextId = 1;
  readonly threadId = FakeWorker.nextId++;
  readonly received: ToWorker[] = [];
  readonly port: number;
  readonly refreshes: boolean;
  constructor(port: number, refreshes: boolean) {
    super();
    this.port = port;
    this.refreshes = refreshes;
  }
  postMessage(message: ToWorker): void {
    this.received.push(message);
  }
  listen(port = this.port || 40000): void {
    this.emit('message', { type: 'listening', port });
  }
  die(code = 1): void {
    this.emit('exit', code);
  }
}

function supervise(overrides: Partial<SupervisorOptions> = {}) {
  const workers: FakeWorker[] = [];
  const lines: string[] = [];
  const announced: number[] = [];
  const exits: number[] = [];
  let manifest = 'one';
  const supervisor = startSupervisor({
    workers: 2,
    port: 8080,
    start: (port, refreshes) => {
      const worker = new FakeWorker(port, refreshes);
      workers.push(worker);
      return worker;
    },
    files: createSharedFiles(),
    announce: (port) => announced.push(port),
    error: (line) => lines.push(line),
    exit: (code) => exits.push(code),
    manifestState: async () => manifest,
    restartDelayMs: 50,
    watchIntervalMs: 20,
    ...overrides,
  });
  return { supervisor, workers, lines, announced, exits, setManifest: (state: string) => (manifest = state) };
}

describe('the workers supervisor', () => {
  it('announces once every worker listens, never before and never twice', () => {
    const { workers, announced } = supervise();
    assert.equal(workers.length, 2);
    workers[0]?.listen();
    assert.deepEqual(announced, [], 'one of two listening');
    workers[1]?.listen();
    assert.deepEqual(announced, [8080]);
    workers[0]?.die();
    workers[1]?.listen();
    assert.deepEqual(announced, [8080]);
  });

  it('PORT=0: starts the others on the port the first was given', () => {
    const { workers, announced } = supervise({ port: 0, workers: 3 });
    assert.deepEqual(
      workers.map((w) => w.port),
      [0],
    );
    workers[0]?.listen(43210);
    assert.deepEqual(
      workers.map((w) => w.port),
      [0, 43210, 43210],
    );
    workers[1]?.listen();
    workers[2]?.listen();
    assert.deepEqual(announced, [43210]);
  });

  it('replaces a worker that dies after a second (here 50 ms), on the same port, with its refresh duty', async () => {
    const { workers, lines } = supervise();
    for (const worker of workers) worker.listen();
    assert.deepEqual(
      workers.map((w) => w.refreshes),
      [true, false],
      'one worker runs the data refresh',
    );
    workers[0]?.emit('error', new Error('boom'));
    workers[0]?.die(1);
    assert.equal(workers.length, 2, 'not at once');
    await sleep(120);
    assert.equal(workers.length, 3);
    assert.equal(workers[2]?.port, 8080);
    assert.equal(workers[2]?.refreshes, true, 'the refresh passes to the replacement');
    assert.match(lines.join('\n'), /worker \d+ failed: boom/);
    assert.match(lines.join('\n'), /worker \d+ exited \(1\); starting another/);
  });

  it('a start where no worker ever listened exits 1, saying why, and starts none again', async () => {
    const { workers, lines, exits } = supervise();
    workers[0]?.emit('error', new Error('listen EADDRNOTAVAIL: address not available 203.0.113.254'));
    workers[0]?.die(1);
    assert.ok(
      workers[1]?.received.some((m) => m.type === 'close'),
      'the other is told to close',
    );
    workers[1]?.die(0);
    assert.deepEqual(exits, [1]);
    assert.match(lines.join('\n'), /netinfo could not start: listen EADDRNOTAVAIL/);
    assert.match(lines.join('\n'), /exited \(1\) before listening/);
    await sleep(120);
    assert.equal(workers.length, 2);
  });

  it('a stop just after a worker died tells every worker to close, exits 0 once all ended, starts none', async () => {
    const { supervisor, workers, exits } = supervise();
    for (const worker of workers) worker.listen();
    workers[0]?.die(1);
    supervisor.stop();
    supervisor.stop();
    assert.deepEqual(
      workers[1]?.received.filter((m) => m.type === 'close'),
      [{ type: 'close' }],
    );
    await sleep(120);
    assert.equal(workers.length, 2, 'no worker started after stopping began');
    assert.deepEqual(exits, []);
    workers[1]?.die(0);
    assert.deepEqual(exits, [0]);
  });

  it('a changed manifest, or a worker that installed data, makes every worker reload', async () => {
    const { workers, setManifest } = supervise();
    for (const worker of workers) worker.listen();
    const reloads = () => workers.map((w) => w.received.filter((m) => m.type === 'reload').length);
    await sleep(60);
    assert.deepEqual(reloads(), [0, 0]);
    setManifest('two');
    await sleep(60);
    assert.deepEqual(reloads(), [1, 1]);
    workers[1]?.emit('message', { type: 'installed' });
    await sleep(60);
    assert.deepEqual(reloads(), [2, 2], 'once each: the watcher does not reload the same manifest again');
  });

  it('sums what every worker reports for a scrape', async () => {
    const { supervisor, workers } = supervise();
    const scraped = supervisor.metrics();
    for (const [index, worker] of workers.entries()) {
      const ask = worker.received.find((m) => m.type === 'metrics');
      assert.ok(ask && ask.type === 'metrics');
      worker.emit('message', { type: 'metrics', id: ask.id, metrics: [{ name: `m${index}` }] });
    }
    assert.deepEqual(await scraped, [[{ name: 'm0' }], [{ name: 'm1' }]]);
  });

  it('a scrape does not wait for a worker that ended meanwhile', async () => {
    const { supervisor, workers } = supervise();
    for (const worker of workers) worker.listen();
    const scraped = supervisor.metrics();
    workers[0]?.die(1);
    const ask = workers[1]?.received.find((m) => m.type === 'metrics');
    assert.ok(ask && ask.type === 'metrics');
    workers[1]?.emit('message', { type: 'metrics', id: ask.id, metrics: [{ name: 'm' }] });
    assert.deepEqual(await scraped, [[], [{ name: 'm' }]]);
  });
});

describe('the data files the workers share', () => {
  it('two worker threads get one copy of a file: a byte one writes, the other reads', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-shared-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'data.bin');
    writeFileSync(file, Buffer.alloc(1024));
    const workers: Worker[] = [];
    const firstBytes: number[] = [];
    let listened = 0;
    const allListened = Promise.withResolvers<void>();
    const { supervisor } = supervise({
      start: (port) => {
        const worker = new Worker(new URL('./share-worker.ts', import.meta.url), {
          workerData: { netinfoWorker: true, port },
          env: { ...process.env, SHARED_FILE: file },
        });
        worker.on('message', (message: { type: string; port: number }) => {
          if (message.type !== 'listening') return;
          firstBytes.push(message.port);
          if (++listened === 2) allListened.resolve();
        });
        workers.push(worker);
        return worker;
      },
      exit: () => {},
    });
    await allListened.promise;
    // The first worker marks its bytes (a reload message is its cue), then the second reports its byte 0.
    const [first, second] = workers as [Worker, Worker];
    first.postMessage({ type: 'reload' });
    await once(first, 'message');
    second.postMessage({ type: 'reload' });
    const [answer] = (await once(second, 'message')) as [{ port: number }];
    assert.equal(answer.port, 42, 'the second worker sees the byte the first wrote');
    supervisor.stop();
    await Promise.all(workers.map((worker) => once(worker, 'exit')));
    assert.deepEqual(firstBytes.slice(0, 2), [0, 0]);
  });

  it('hands out the same copy while the file is unchanged, and a new one once it is replaced', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-shared-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'city.mmdb');
    writeFileSync(file, 'old data');
    const files = createSharedFiles();
    const [a, b] = await Promise.all([files.read(file), files.read(file)]);
    assert.equal(a, b);
    assert.equal(await files.read(file), a);
    writeFileSync(`${file}.new`, 'new data!');
    renameSync(`${file}.new`, file);
    const c = await files.read(file);
    assert.notEqual(c, a);
    assert.equal(Buffer.from(c).toString(), 'new data!');
    assert.equal(Buffer.from(a).toString(), 'old data', 'a worker still holding the old copy keeps it whole');
    rmSync(file);
    await assert.rejects(files.read(file), /ENOENT/);
  });

  it('lets go of a copy no worker holds, a minute after it was last handed out', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-shared-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'GeoLite2-City.mmdb');
    writeFileSync(file, 'embedded data');
    let now = 0;
    const files = createSharedFiles(() => now);
    const first = await files.read(file);
    const key = (await stampOf(file))?.key as string;
    now = 120_000;
    files.retain(new Set([key]));
    assert.equal(await files.read(file), first, 'kept while a worker holds it');
    files.retain(new Set());
    assert.equal(await files.read(file), first, 'handed out just now: a worker still loading may hold it');
    now = 240_000;
    files.retain(new Set());
    const again = await files.read(file);
    assert.notEqual(again, first, 'let go: read again');
  });
});
