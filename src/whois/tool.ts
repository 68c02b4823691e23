import type { CappedTool } from '../limits/in-flight.ts';
import { MAX_REFERRALS } from './chain.ts';

export const WHOIS_TOOL: CappedTool = {
  calls: '/whois lookups',
  variable: 'WHOIS',
  // Servers are asked one at a time, each after a DNS question.
  socketsPerCall: 2,
};

/** The longest one lookup runs: each WHOIS server and each of the two RDAP servers within its timeout. */
export function whoisTimeLimitMs(timeoutMs: number): number {
  return (MAX_REFERRALS + 1 + 2) * timeoutMs;
}
