import type { CappedTool } from '../limits/in-flight.ts';
import { TLS_VERSIONS } from './client-hello.ts';

export const SSL_TOOL: CappedTool = {
  calls: '/ssl checks',
  variable: 'TLS',
  // The main connection, one per version probe, a DNS socket.
  socketsPerCall: 1 + TLS_VERSIONS.length + 1,
};
