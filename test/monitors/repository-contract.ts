import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MonitorRecord, MonitorRepository, RunRecord, TickRecord } from '../../src/monitors/repository.ts';
import type { AccountRepository } from '../../src/storage/repository.ts';

/**
 * What every MonitorRepository must do, written once and run on SQLite and PostgreSQL. `open` gives
 * an empty, migrated database with both repositories over it (monitors belong to accounts).
 */
export function monitorRepositoryContract(
  engine: string,
  open: () => Promise<{ accounts: AccountRepository; monitors: MonitorRepository; cleanup: () => Promise<void> }>,
): void {
  let serial = 0;
  const withRepository = (name: string, body: (repository: MonitorRepository, accountId: string) => Promise<void>) =>
    test(`${engine} monitors: ${name}`, async () => {
      const { accounts, monitors, cleanup } = await open();
      const accountId = `acct-m-${++serial}`.padEnd(16, 'x');
      await accounts.createAccount({
        id: accountId,
        email: `m${serial}@example.com`,
        passwordHash: 'x',
        plan: 'pro',
        createdAt: 1,
        disabledAt: null,
      });
      try {
        await body(monitors, accountId);
      } finally {
        await monitors.close();
        await accounts.close();
        await cleanup();
      }
    });

  const monitor = (accountId: string, overrides: Partial<MonitorRecord> = {}): MonitorRecord => ({
    id: `mon-${++serial}`,
    accountId,
    name: 'site',
    type: 'http',
    target: 'https://example.com/',
    options: { method: 'GET' },
    intervalSeconds: 60,
    locations: [{ country: 'DE', limit: 2 }],
    conditions: { status_not: [200, 204] },
    webhooks: ['https://hooks.example/a', 'https://hooks.example/b'],
    emails: [],
    pausedAt: null,
    secret: { keyVersion: 1, nonce: 'n', ciphertext: 'c', tag: 't' },
    createdAt: 1000,
    updatedAt: 1000,
    nextRunAt: 1000,
    state: null,
    stateSince: null,
    stateDueAt: null,
    baseline: null,
    ...overrides,
  });
  const run = (monitorId: string, dueAt: number, state: RunRecord['state'], node = 'n1'): RunRecord => ({
    id: `run-${++serial}`,
    monitorId,
    dueAt,
    startedAt: dueAt + 5,
    node,
    durationMs: 12,
    responseMs: state === 'error' ? null : 10.5,
    state,
    cause: state === 'up' ? null : `it is ${state}`,
    summary: { status: state === 'up' ? 200 : 503 },
  });
  const tick = (monitorId: string, dueAt: number, states: RunRecord['state'][]): TickRecord => {
    const runs = states.map((state, i) => run(monitorId, dueAt, state, `n${i + 1}`));
    const down = runs.find((candidate) => candidate.state === 'down');
    const state = down ? 'down' : runs.some((candidate) => candidate.state === 'up') ? 'up' : null;
    return { monitorId, dueAt, at: dueAt + 20, runs, state, cause: down?.cause ?? null, nextRunAt: dueAt + 60_000 };
  };
  const noDeliveries = () => [];

  withRepository('stores a monitor as given and finds it by account only', async (repository, accountId) => {
    const record = monitor(accountId);
    assert.equal(await repository.createMonitor(record, 10), 'created');
    assert.deepEqual(await repository.findMonitor(accountId, record.id), record);
    assert.equal(await repository.findMonitor('someone-else-0000', record.id), undefined);
    const scheduled = await repository.monitorById(record.id);
    assert.equal(scheduled?.plan, 'pro');
    assert.equal(scheduled?.accountDisabled, false);
    assert.deepEqual(await repository.listScheduled(), [{ id: record.id, intervalSeconds: 60, nextRunAt: 1000 }]);
    assert.deepEqual(
      (await repository.listMonitors(accountId)).map((m) => m.id),
      [record.id],
    );
  });

  withRepository('the quota holds under concurrent creations', async (repository, accountId) => {
    const results = await Promise.all(Array.from({ length: 8 }, () => repository.createMonitor(monitor(accountId), 3)));
    assert.equal(results.filter((result) => result === 'created').length, 3);
    assert.equal((await repository.listMonitors(accountId)).length, 3);
  });

  withRepository(
    'webhook secrets: listed by master key version, replaced only from the version read',
    async (repository, accountId) => {
      const old = monitor(accountId);
      const current = monitor(accountId, { secret: { keyVersion: 2, nonce: 'n2', ciphertext: 'c2', tag: 't2' } });
      await repository.createMonitor(old, 10);
      await repository.createMonitor(current, 10);
      assert.deepEqual(await repository.listSecretsNotAtVersion(2), [{ id: old.id, secret: old.secret }]);
      const alsoOld = monitor(accountId, { secret: { keyVersion: 1, nonce: 'n4', ciphertext: 'c4', tag: 't4' } });
      await repository.createMonitor(alsoOld, 10);
      const perVersion = await repository.oneSecretPerVersion();
      assert.deepEqual(
        perVersion.map(({ secret }) => secret.keyVersion),
        [1, 2],
        'one of each version in use',
      );
      assert.ok([old.id, alsoOld.id].includes(perVersion[0]?.id ?? ''));
      await repository.deleteMonitor(accountId, alsoOld.id);
      const next = { keyVersion: 2, nonce: 'n3', ciphertext: 'c3', tag: 't3' };
      assert.equal(await repository.replaceSecret(old.id, 3, next), false, 'not under version 3: left as it is');
      assert.equal(await repository.replaceSecret(old.id, 1, next), true);
      assert.equal(await repository.replaceSecret(old.id, 1, next), false, 'a second rotation finds it moved');
      assert.deepEqual((await repository.findMonitor(accountId, old.id))?.secret, next);
      assert.deepEqual(await repository.listSecretsNotAtVersion(2), []);
      assert.deepEqual((await repository.findMonitor(accountId, current.id))?.secret, current.secret, 'untouched');
    },
  );

  withRepository('a paused monitor is not scheduled; an update can reset the state', async (repository, accountId) => {
    const record = monitor(accountId);
    await repository.createMonitor(record, 10);
    await repository.recordTick(tick(record.id, 1000, ['down']), noDeliveries);
    const paused = await repository.updateMonitor(accountId, record.id, { ...record, pausedAt: 5000 }, 5000, false);
    assert.equal(paused?.state, 'down', 'kept without a reset');
    assert.deepEqual(await repository.listScheduled(), []);
    const reset = await repository.updateMonitor(accountId, record.id, { ...record, target: 'https://b/' }, 6000, true);
    assert.equal(reset?.state, null);
    assert.equal(reset?.baseline, null);
    assert.equal(reset?.target, 'https://b/');
    assert.equal(await repository.updateMonitor('someone-else-0000', record.id, record, 7000, false), undefined);
  });

  withRepository('ticks: first state, a change opens an incident, another ends it', async (repository, accountId) => {
    const record = monitor(accountId);
    await repository.createMonitor(record, 10);
    const changes: string[] = [];
    const notify = (change: { state: string; previous: string | null }) => {
      changes.push(`${change.previous}->${change.state}`);
      return [];
    };
    const first = await repository.recordTick(tick(record.id, 1000, ['up', 'up']), notify);
    assert.ok(first.recorded && first.change?.incident === null);
    const down = await repository.recordTick(tick(record.id, 61_000, ['up', 'down']), notify);
    assert.ok(down.recorded && down.change);
    assert.equal(down.change.incident?.endedAt, null);
    assert.equal(down.change.incident?.cause, 'it is down');
    assert.deepEqual(await repository.openIncident(record.id), down.change.incident);
    const still = await repository.recordTick(tick(record.id, 121_000, ['down', 'down']), notify);
    assert.ok(still.recorded && still.change === null, 'no change while down');
    const errors = await repository.recordTick(tick(record.id, 181_000, ['error']), notify);
    assert.ok(errors.recorded && errors.change === null, 'an error run changes nothing');
    const up = await repository.recordTick(tick(record.id, 241_000, ['up']), notify);
    assert.ok(up.recorded && up.change);
    assert.equal(up.change.incident?.id, down.change.incident?.id);
    assert.equal(up.change.incident?.endedAt, 241_020);
    assert.equal(await repository.openIncident(record.id), undefined);
    assert.deepEqual(changes, ['null->up', 'up->down', 'down->up']);
    const stored = await repository.findMonitor(accountId, record.id);
    assert.equal(stored?.state, 'up');
    assert.equal(stored?.stateSince, 241_020);
    assert.equal(stored?.nextRunAt, 301_000);
  });

  withRepository(
    'a due time is recorded once; an older tick does not overwrite a newer state',
    async (repository, accountId) => {
      const record = monitor(accountId);
      await repository.createMonitor(record, 10);
      assert.ok((await repository.recordTick(tick(record.id, 1000, ['up']), noDeliveries)).recorded);
      assert.deepEqual(await repository.recordTick(tick(record.id, 1000, ['down']), noDeliveries), { recorded: false });
      assert.ok((await repository.recordTick(tick(record.id, 121_000, ['down']), noDeliveries)).recorded);
      const late = await repository.recordTick(tick(record.id, 61_000, ['up']), noDeliveries);
      assert.ok(late.recorded && late.change === null, 'the run due at 61 s ended after the one due at 121 s');
      assert.equal((await repository.findMonitor(accountId, record.id))?.state, 'down');
      assert.equal((await repository.findMonitor(accountId, record.id))?.nextRunAt, 181_000, 'never moved back');
      assert.equal((await repository.listRuns(record.id, 10)).length, 3);
    },
  );

  withRepository('runs page newest first; uptime counts up of up-or-down', async (repository, accountId) => {
    const record = monitor(accountId);
    await repository.createMonitor(record, 10);
    const states: RunRecord['state'][] = ['up', 'up', 'down', 'error', 'up'];
    for (const [i, state] of states.entries())
      await repository.recordTick(tick(record.id, i * 1000, [state]), noDeliveries);
    const firstPage = await repository.listRuns(record.id, 2);
    assert.deepEqual(
      firstPage.map((r) => r.dueAt),
      [4000, 3000],
    );
    const last = firstPage[1] as RunRecord;
    const next = await repository.listRuns(record.id, 10, { startedAt: last.startedAt, id: last.id });
    assert.deepEqual(
      next.map((r) => r.dueAt),
      [2000, 1000, 0],
    );
    assert.deepEqual(next[0]?.summary, { status: 503 });
    assert.deepEqual(await repository.uptime(record.id, [0, 2000, 10_000]), [
      { up: 3, total: 4 },
      { up: 1, total: 2 },
      { up: 0, total: 0 },
    ]);
  });

  withRepository('the baseline is set once', async (repository, accountId) => {
    const record = monitor(accountId, { type: 'dns' });
    await repository.createMonitor(record, 10);
    await repository.recordTick({ ...tick(record.id, 1000, ['up']), baseline: ['192.0.2.1'] }, noDeliveries);
    await repository.recordTick({ ...tick(record.id, 2000, ['up']), baseline: ['192.0.2.9'] }, noDeliveries);
    assert.deepEqual((await repository.findMonitor(accountId, record.id))?.baseline, ['192.0.2.1']);
  });

  withRepository(
    'deliveries: made with the change, attempts kept, a 410 removes the webhook',
    async (repository, accountId) => {
      const record = monitor(accountId);
      await repository.createMonitor(record, 10);
      const outcome = await repository.recordTick(tick(record.id, 1000, ['down']), (change) =>
        change.monitor.webhooks.map((url, i) => ({
          id: `del-${serial}-${i}`,
          monitorId: record.id,
          url,
          event: 'monitor.down',
          body: '{}',
          createdAt: 1020,
          state: 'pending' as const,
          attempts: [],
          nextAttemptAt: 1020,
        })),
      );
      assert.ok(outcome.recorded);
      assert.equal(outcome.deliveries.length, 2);
      const [a, b] = outcome.deliveries;
      assert.ok(a && b);
      assert.deepEqual(
        (await repository.dueDeliveries(1020, 10)).map((d) => d.id),
        [a.id, b.id].sort(),
      );
      assert.deepEqual(await repository.dueDeliveries(1019, 10), []);
      await repository.recordAttempt(
        a.id,
        { at: 1030, status: 500, error: null, duration_ms: 3 },
        'pending',
        2030,
        false,
      );
      await repository.recordAttempt(
        a.id,
        { at: 2030, status: 200, error: null, duration_ms: 2 },
        'delivered',
        null,
        false,
      );
      await repository.recordAttempt(
        b.id,
        { at: 1031, status: 410, error: null, duration_ms: 1 },
        'removed',
        null,
        true,
      );
      const stored = await repository.deliveryById(a.id);
      assert.equal(stored?.state, 'delivered');
      assert.deepEqual(
        stored?.attempts.map((attempt) => attempt.status),
        [500, 200],
      );
      assert.deepEqual((await repository.findMonitor(accountId, record.id))?.webhooks, ['https://hooks.example/a']);
      assert.equal((await repository.listDeliveries(record.id, 10)).length, 2);
    },
  );

  withRepository(
    'prune deletes old runs, ended incidents and settled deliveries; deleting a monitor takes its history',
    async (repository, accountId) => {
      const record = monitor(accountId);
      await repository.createMonitor(record, 10);
      await repository.recordTick(tick(record.id, 1000, ['down']), noDeliveries);
      await repository.recordTick(tick(record.id, 2000, ['up']), noDeliveries);
      await repository.recordTick(tick(record.id, 900_000, ['up']), noDeliveries);
      const deleted = await repository.prune(500_000);
      assert.equal(deleted, 3, 'two runs and the ended incident');
      assert.equal((await repository.listRuns(record.id, 10)).length, 1);
      assert.equal(await repository.deleteMonitor('someone-else-0000', record.id), false);
      assert.equal(await repository.deleteMonitor(accountId, record.id), true);
      assert.deepEqual(await repository.listRuns(record.id, 10), []);
    },
  );
}
