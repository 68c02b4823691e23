import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCENARIOS } from '../../bench/scenarios.ts';
import { type Figures, judge, loadSeconds, planLine, type Round, roundLine } from '../../bench/verdicts.ts';

const figures = (rps: number, p99 = 3): Figures => ({ rps, p50: 1, p99, cpuUs: 20 });
const round = (ratio: number, p99 = 3, peakMb = 250): Round => ({
  baseline: figures(10_000),
  netinfo: figures(10_000 * ratio, p99),
  netinfoPeakMb: peakMb,
});

// Regression: `npm run bench` ran about six minutes without saying so.
test('the run says first how long its load lasts, computed from its rounds and durations', () => {
  const plan = { scenarios: Object.keys(SCENARIOS), rounds: 5, seconds: 10, warmupSeconds: 3 };
  assert.equal(loadSeconds(plan), 7 * 2 * (3 + 5 * 10));
  assert.match(
    planLine(plan),
    /^7 scenarios \(ipv6, ipv6-keyed, json, json-rpki, json-ip, mcp-ip, batch\), each 6 s of warm-up and 5 rounds of 2 x 10 s: about 12 min 22 s of load/,
  );
  assert.match(
    planLine({ ...plan, scenarios: ['ipv6'], rounds: 1, seconds: 1 }),
    /1 round of 2 x 1 s: about 8 s of load/,
  );
  assert.match(
    planLine({ ...plan, scenarios: ['ipv6', 'json', 'batch'], rounds: 1, seconds: 17 }),
    /about 2 min of load/,
  );
});

// Regression: a single noisy round must not read as a missed target.
test('targets are judged on the medians of the rounds, and a round line carries no verdict', () => {
  const json = SCENARIOS.json;
  assert.ok(json?.p99UnderMs !== undefined && json.rssUnderMb !== undefined);
  const noisy = round(0.3, 40, json.rssUnderMb + 100);
  const rounds = [round(0.8), noisy, round(0.75), round(0.7), round(0.9)];
  const line = roundLine(2, noisy, json);
  assert.match(line, /ratio 0\.30/);
  assert.match(line, /p99 40 ms/);
  assert.doesNotMatch(line, /met/i);
  assert.deepEqual(
    judge(json, rounds).map((verdict) => verdict.met),
    [true, true, true],
  );
  assert.match(judge(json, rounds)[0]?.line ?? '', /^median ratio 0\.75 \(target >= 0\.6\): met$/);

  const slow = [round(0.5, 9, 320), round(0.55, 9, 320), round(0.9), round(0.58, 9, 320), round(0.95)];
  const verdicts = judge(json, slow);
  assert.deepEqual(
    verdicts.map((verdict) => verdict.met),
    [false, false, false],
  );
  for (const verdict of verdicts) assert.match(verdict.line, /NOT met$/);
});
