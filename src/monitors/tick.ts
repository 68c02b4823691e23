import type { MonitorState, RunState } from './monitor-types.ts';

/** A tick's state from its probes: down if any is down, else up if any is up; null when all were errors. */
export function tickState(states: readonly RunState[]): MonitorState | null {
  if (states.includes('down')) return 'down';
  if (states.includes('up')) return 'up';
  return null;
}

/**
 * Whether a tick changes the monitor's state: it said up or down, not what the monitor says now,
 * and it is not older than the tick that set the current state (runs of one monitor may end out of
 * order when a check takes longer than its interval).
 */
export function changes(
  current: { state: MonitorState | null; stateDueAt: number | null },
  tick: { state: MonitorState | null; dueAt: number },
): boolean {
  if (tick.state === null || tick.state === current.state) return false;
  return current.stateDueAt === null || tick.dueAt >= current.stateDueAt;
}

/** The first state is announced only when it is down: "it works" is not news. */
export function notifies(previous: MonitorState | null, next: MonitorState): boolean {
  return previous !== null || next === 'down';
}
