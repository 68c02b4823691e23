import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppDeps } from '../../src/app.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';

/** What a fake is changed to before a run, and what that run must then say. */
export interface Step {
  /** Awaited when it returns a promise. */
  change?: () => unknown;
  state: 'up' | 'down';
  /** null: no cause at all. */
  cause: RegExp | null;
}

interface RunView {
  started_at: string;
  state: string;
  cause: string | null;
  response_ms: number | null;
  summary: Record<string, unknown>;
}

const RUN_WAIT_MS = 20_000;

/**
 * The real app with an account whose monitors may run every second, and `follow`: a monitor
 * created through the API, taken through steps. A step's run is the first one started after its
 * change, so a run already under way with the fake's old behaviour is never the one judged.
 */
export async function startMonitorHarness(env: Record<string, string>, deps: AppDeps = {}) {
  const setup = await buildAccountsApp(
    {
      MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
      MONITOR_LIMITS: 'free=50,pro=50',
      // The test reads the runs ten times a second.
      RATE_LIMITS: 'free=1000000/1000000',
      ...env,
    },
    deps,
  );
  const { app } = setup;
  const session = sessionClient(app);
  const signup = await session.signup('conditions@example.com', PASSWORD);
  assert.equal(signup.statusCode, 201, signup.body);
  const headers = { authorization: `Bearer ${(await session.createKey('conditions')).json().key}` };

  async function firstRunSince(id: string, since: number): Promise<RunView> {
    const deadline = Date.now() + RUN_WAIT_MS;
    for (;;) {
      const response = await app.inject({ url: `/api/v1/monitors/${id}/runs?limit=1000`, headers });
      const runs: RunView[] = response.json().runs;
      // Newest first: the last one started since is the first.
      const run = runs.filter((candidate) => Date.parse(candidate.started_at) >= since).at(-1);
      if (run) return run;
      if (Date.now() > deadline) throw new Error(`no run of ${id} started since ${new Date(since).toISOString()}`);
      await sleep(100);
    }
  }

  /** Creates the monitor (run every second), follows it through the steps, deletes it; the runs judged, in order. */
  async function follow(monitor: Record<string, unknown>, steps: readonly Step[]): Promise<RunView[]> {
    let since = Date.now();
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/monitors',
      headers,
      payload: { name: `${monitor.type} ${monitor.target}`, interval_seconds: 1, ...monitor },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json();
    const judged: RunView[] = [];
    try {
      for (const [index, step] of steps.entries()) {
        if (step.change) {
          await step.change();
          since = Date.now();
        }
        const run = await firstRunSince(id, since);
        const context = `step ${index}: ${JSON.stringify(run)}`;
        assert.equal(run.state, step.state, context);
        if (step.cause === null) assert.equal(run.cause, null, context);
        else assert.match(String(run.cause), step.cause, context);
        judged.push(run);
        since = Date.parse(run.started_at) + 1;
      }
      const view = (await app.inject({ url: `/api/v1/monitors/${id}`, headers })).json();
      assert.equal(view.state, steps.at(-1)?.state, 'the monitor is in its last run state');
    } finally {
      await app.inject({ method: 'DELETE', url: `/api/v1/monitors/${id}`, headers });
    }
    return judged;
  }

  return { app, follow, close: () => setup.close() };
}
