/**
 * What /readyz reports. Components that load data at startup register a check; the service is
 * ready when every check is, and `degraded` (still serving) when a check says so.
 */
export type ReadinessCheck = () => { state: 'ready' | 'starting' | 'degraded'; detail?: string };

export interface Readiness {
  add(name: string, check: ReadinessCheck): void;
  report(): { status: 'ready' | 'starting' | 'degraded'; checks: Record<string, { state: string; detail?: string }> };
}

export function createReadiness(): Readiness {
  const checks = new Map<string, ReadinessCheck>();
  return {
    add(name, check) {
      checks.set(name, check);
    },
    report() {
      const results = Object.fromEntries([...checks].map(([name, check]) => [name, check()]));
      const states = Object.values(results).map((result) => result.state);
      const status = states.includes('starting') ? 'starting' : states.includes('degraded') ? 'degraded' : 'ready';
      return { status, checks: results };
    },
  };
}
