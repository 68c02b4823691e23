import type { CappedTool } from '../limits/in-flight.ts';

export const HTTP_CHECK_TOOL: CappedTool = {
  calls: '/http checks',
  variable: 'HTTP_CHECK',
  // One connection (hops are sequential) and a DNS socket.
  socketsPerCall: 2,
};
