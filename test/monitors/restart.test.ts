import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASSWORD } from '../support/accounts.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { watchedSite } from '../support/watched-site.ts';

test('without Redis, a run lost to kill -9 runs when the process is back, for its due time, once', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-monitors-restart-'));
  const site = await watchedSite();
  const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', NODE_NAME: 'solo' };
  let service = await startServiceProcess(env);
  try {
    const signup = await fetch(`${service.url}/api/v1/account/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'restart@example.com', password: PASSWORD }),
    });
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = ((await signup.json()) as { csrf_token: string }).csrf_token;
    const headers = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
    const created = await fetch(`${service.url}/api/v1/monitors`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'held', type: 'http', target: site.url('/hold'), interval_seconds: 3600 }),
    });
    assert.equal(created.status, 201);
    const { id, created_at: createdAt } = (await created.json()) as { id: string; created_at: string };
    for (let i = 0; i < 100 && site.held.length === 0; i++) await sleep(50);
    assert.equal(site.held.length, 1, 'the first run is under way');
    service.child.kill('SIGKILL');
    await sleep(200);
    site.release();
    assert.equal(site.hits('/hold'), 1);

    service = await startServiceProcess(env);
    type Run = { due_at: string; started_at: string; state: string };
    let runs: Run[] = [];
    for (let i = 0; i < 100 && runs.length === 0; i++) {
      await sleep(100);
      const response = await fetch(`${service.url}/api/v1/monitors/${id}/runs`, { headers });
      runs = ((await response.json()) as { runs: Run[] }).runs;
    }
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.due_at, createdAt, 'the lost run, not a new slot');
    assert.equal(runs[0]?.state, 'up');
    assert.equal(site.hits('/hold'), 2);
    await sleep(1000);
    assert.equal(site.hits('/hold'), 2, 'and then nothing until the next slot, an hour later');
  } finally {
    await service.stop();
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
