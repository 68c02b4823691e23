import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASSWORD } from '../support/accounts.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.ts';
import { ownerOf, watchedSite } from '../support/watched-site.ts';

if (redisSkipReason) console.log(`# monitors across instances skipped: ${redisSkipReason}`);

describe('monitors across instances on one Redis (BullMQ): each due run once, taken over from a killed process', {
  skip: redisSkipReason || false,
}, () => {
  let redis: TestRedis;
  let dataDir: string;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let site: Awaited<ReturnType<typeof watchedSite>>;
  let headers: Record<string, string>;

  before(async () => {
    redis = await startRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-monitors-dist-'));
    site = await watchedSite();
    const common = {
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
      NODE_HEARTBEAT_SECONDS: '1',
      NODE_TIMEOUT_SECONDS: '2',
      // One mesh: a monitor may run from both nodes.
      MESH_SECRET: 'a-mesh-secret-of-at-least-32-characters',
    };
    // One instance of two WORKERS (threads of one process), and another: three workers take jobs
    // from the one queue.
    a = await startServiceProcess({ ...common, WORKERS: '2', NODE_NAME: 'a' });
    b = await startServiceProcess({ ...common, NODE_NAME: 'b' });
    const signup = await fetch(`${a.url}/api/v1/account/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dist@example.com', password: PASSWORD }),
    });
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    headers = {
      cookie,
      'x-csrf-token': ((await signup.json()) as { csrf_token: string }).csrf_token,
      'content-type': 'application/json',
    };
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await site?.close();
    await redis?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = async (instance: ServiceProcess, where: string, init: RequestInit = {}) => {
    const response = await fetch(`${instance.url}/api/v1/monitors${where}`, { ...init, headers });
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below
    const body: any = await response.json().catch(() => null);
    return { status: response.status, body };
  };
  const create = (instance: ServiceProcess, body: object) =>
    api(instance, '', { method: 'POST', body: JSON.stringify(body) });
  type Run = { due_at: string; started_at: string; node: string; state: string; cause: string | null };
  const runsOf = async (id: string, via = b): Promise<Run[]> => (await api(via, `/${id}/runs?limit=1000`)).body.runs;

  it('runs every monitor on its 1 s grid, each due time once across three workers, with no gap', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await create(i % 2 ? a : b, {
        name: `m${i}`,
        type: 'http',
        target: site.url(`/m${i}`),
        interval_seconds: 1,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids.push(created.body.id);
    }
    await sleep(6500);
    for (const id of ids) await api(a, `/${id}`, { method: 'PATCH', body: JSON.stringify({ paused: true }) });
    await sleep(1500);
    const nodes = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const runs = await runsOf(id);
      const dues = runs.map((run) => Date.parse(run.due_at)).sort((x, y) => x - y);
      assert.ok(dues.length >= 5, `m${i}: ${dues.length} runs`);
      assert.equal(new Set(dues).size, dues.length, `m${i}: a due time twice`);
      for (let k = 1; k < dues.length; k++) assert.equal((dues[k] ?? 0) - (dues[k - 1] ?? 0), 1000, `m${i}: a gap`);
      assert.equal(site.hits(`/m${i}`), runs.length, `m${i}: the site was asked once per run`);
      for (const run of runs) {
        nodes.add(run.node);
      }
    }
    // How late runs start is the benchmark's to say (npm run bench:monitors): here the machine's load decides it.
    assert.deepEqual([...nodes].sort(), ['a', 'b'], 'both instances ran some');
  });

  it('a monitor from two nodes has a run from each at every due time', async () => {
    const created = await create(a, {
      name: 'both',
      type: 'http',
      target: site.url('/both'),
      interval_seconds: 1,
      from: [{ node: 'a' }, { node: 'b' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await sleep(3500);
    await api(a, `/${created.body.id}`, { method: 'PATCH', body: JSON.stringify({ paused: true }) });
    await sleep(1000);
    const byDue = new Map<string, string[]>();
    for (const run of await runsOf(created.body.id))
      byDue.set(run.due_at, [...(byDue.get(run.due_at) ?? []), run.node]);
    assert.ok(byDue.size >= 3, `${byDue.size} due times`);
    for (const [due, nodes] of byDue) assert.deepEqual(nodes.sort(), ['a', 'b'], due);
    assert.equal(site.hits('/both'), byDue.size * 2);
  });

  it('a run whose process is killed mid-run is run again by another, once', async () => {
    const created = await create(a, { name: 'held', type: 'http', target: site.url('/hold'), interval_seconds: 3600 });
    assert.equal(created.status, 201);
    for (let i = 0; i < 100 && site.held.length === 0; i++) await sleep(50);
    const first = site.held[0];
    assert.ok(first, 'the first run reached the site');
    const victim = ownerOf(first.port);
    assert.ok(victim !== null, 'the process making the request');
    // With WORKERS=2 the process is a's whole instance: its two worker threads end together.
    process.kill(victim, 'SIGKILL');
    const survivor = victim === b.child.pid ? a : b;
    const killedAt = Date.now();
    site.release();
    let runs: Run[] = [];
    for (let i = 0; i < 150 && runs.length === 0; i++) {
      await sleep(100);
      runs = await runsOf(created.body.id, survivor);
    }
    assert.equal(runs.length, 1, 'recorded once');
    const [run] = runs;
    assert.ok(run);
    const seen = `${JSON.stringify(run)}, killed ${victim}, ${site.hits('/hold')} requests`;
    if (run.state === 'error') {
      // The killed process ran the probe for the other instance, which holds the job (one mesh):
      // the job's holder lives, the probe's node went silent, and the run says so: an error, which
      // alerts no one, recorded once.
      assert.match(run.cause ?? '', /went silent during the probe/, seen);
      assert.equal(site.hits('/hold'), 1, seen);
    } else {
      // The killed process held the job: its lock lapsed and another process ran it again.
      assert.equal(run.state, 'up', seen);
      assert.ok(Date.parse(run.started_at) >= killedAt, seen);
      assert.equal(site.hits('/hold'), 2, seen);
    }
    assert.ok(Date.now() - killedAt < 12_000, 'within the lock (NODE_TIMEOUT_SECONDS) and a stalled check');
  });
});
