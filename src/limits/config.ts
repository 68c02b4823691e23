import { type ConfigVariable, integerIn } from '../config-values.ts';

export const limitsConfigVariables = {
  fdReserve: {
    name: 'FD_RESERVE',
    defaultText: '1024',
    description:
      "Open files (descriptors) kept free of upstream sockets: the global in-flight caps of /ssl, /http, /mail, /whois and /port are scaled down at start, all by the same factor, until the sockets they may hold together (the most each call holds at once, see docs/performance.md) fit the process's soft RLIMIT_NOFILE minus this reserve (at most half the limit), so /healthz and other clients still get descriptors when the caps are full. The start-up log says when the caps were reduced.",
    parse: integerIn(0, 1_000_000, 1024),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
