import type { CappedTool } from '../limits/in-flight.ts';

/**
 * Capped although each check holds one socket for at most PORT_CHECK_TIMEOUT_MS: the rate limits
 * count per hour, so a burst from many callers (every IPv6 /64 is one) could otherwise hold sockets
 * without bound, each answering to nobody for 2 s while its SYNs are dropped.
 */
export const PORT_CHECK_TOOL: CappedTool = {
  calls: '/port checks',
  variable: 'PORT_CHECK',
  socketsPerCall: 1,
};

/** echoip's limit for its one connect (net.DialTimeout, 2 s). */
export const PORT_CHECK_TIMEOUT_MS = 2000;
