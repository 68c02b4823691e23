import type { CappedTool } from '../limits/in-flight.ts';

/**
 * The most DNS queries one check may ask (each A, AAAA, MX or TXT question counts, cached or not).
 * Well-formed domains stay under 40; the cap stops a record built to make the service ask hundreds.
 */
export const MAX_QUERIES_PER_CHECK = 100;

export const MAIL_TOOL: CappedTool & { readonly timeLimitMs: number } = {
  calls: '/mail checks',
  variable: 'MAIL',
  // A UDP socket per DNS question out, and a check never asks more than its cap.
  socketsPerCall: MAX_QUERIES_PER_CHECK,
  // Each query keeps the resolver's own deadline, but an SPF chain is followed one level at a time:
  // without a limit of its own a chain of slow servers could hold the answer for as many deadlines
  // as it is deep.
  timeLimitMs: 10_000,
};
