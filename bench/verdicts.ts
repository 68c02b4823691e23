// What `npm run bench` says before and after the load: how long it will take, and whether each
// scenario met its targets. Judged on the medians of the rounds only: on a shared machine single
// rounds range too widely (0.5 to 0.9 of the baseline in one run) to say anything on their own.
import type { Scenario } from './scenarios.ts';

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

export interface Round {
  baseline: Figures;
  netinfo: Figures;
  /** netinfo's peak resident memory during the round, in MB. */
  netinfoPeakMb: number;
}

export interface Plan {
  scenarios: string[];
  rounds: number;
  seconds: number;
  warmupSeconds: number;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Seconds of load a run puts on: per scenario, a warm-up and every round, for both servers. */
export function loadSeconds(plan: Plan): number {
  return plan.scenarios.length * 2 * (plan.warmupSeconds + plan.rounds * plan.seconds);
}

export function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  if (minutes === 0) return `${rest} s`;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** The line printed before anything runs. */
export function planLine(plan: Plan): string {
  const total = formatDuration(loadSeconds(plan));
  return (
    `${plan.scenarios.length} scenario${plan.scenarios.length === 1 ? '' : 's'} (${plan.scenarios.join(', ')}), ` +
    `each ${2 * plan.warmupSeconds} s of warm-up and ${plan.rounds} round${plan.rounds === 1 ? '' : 's'} of ` +
    `2 x ${plan.seconds} s: about ${total} of load, plus each scenario's start-up ` +
    '(BENCH_ROUNDS, BENCH_SECONDS or scenario names after -- make it shorter)'
  );
}

/** A round's figures, without a verdict: one round is too noisy to judge a target by. */
export function roundLine(index: number, round: Round, scenario: Scenario): string {
  const { baseline, netinfo } = round;
  const parts = [
    `  round ${index}: baseline ${baseline.rps.toFixed(0)} req/s, netinfo ${netinfo.rps.toFixed(0)} req/s ` +
      `(ratio ${(netinfo.rps / baseline.rps).toFixed(2)}); server CPU ${baseline.cpuUs.toFixed(1)} vs ` +
      `${netinfo.cpuUs.toFixed(1)} µs/request`,
  ];
  if (scenario.p99UnderMs !== undefined) parts.push(`netinfo p99 ${netinfo.p99} ms`);
  if (scenario.rssUnderMb !== undefined) parts.push(`peak ${round.netinfoPeakMb.toFixed(0)} MB`);
  return parts.join('; ');
}

export interface Verdict {
  met: boolean;
  line: string;
}

/** The scenario's targets, each judged on the median over the rounds. */
export function judge(scenario: Scenario, rounds: Round[]): Verdict[] {
  const said = (met: boolean) => (met ? 'met' : 'NOT met');
  const ratio = median(rounds.map((round) => round.netinfo.rps / round.baseline.rps));
  const verdicts: Verdict[] = [];
  const ratioMet = ratio >= scenario.target;
  verdicts.push({
    met: ratioMet,
    line: `median ratio ${ratio.toFixed(2)} (target >= ${scenario.target}): ${said(ratioMet)}`,
  });
  if (scenario.p99UnderMs !== undefined) {
    const p99 = median(rounds.map((round) => round.netinfo.p99));
    const met = p99 < scenario.p99UnderMs;
    verdicts.push({ met, line: `netinfo median p99 ${p99} ms (target < ${scenario.p99UnderMs}): ${said(met)}` });
  }
  if (scenario.rssUnderMb !== undefined) {
    const peak = median(rounds.map((round) => round.netinfoPeakMb));
    const met = peak < scenario.rssUnderMb;
    verdicts.push({
      met,
      line: `netinfo median of the rounds' peak resident memory ${peak.toFixed(0)} MB (target < ${scenario.rssUnderMb}): ${said(met)}`,
    });
  }
  return verdicts;
}
