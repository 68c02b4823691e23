import { type ConfigVariable, integerIn } from '../../config-values.ts';

/** Settings of the live ping and traceroute streams (each stream runs one system process). */
export const streamConfigVariables = {
  streamMaxConcurrent: {
    name: 'STREAM_MAX_CONCURRENT',
    defaultText: '100',
    description:
      'Ping and traceroute streams open at the same time, all callers together (each runs one process); one more is answered 429.',
    parse: integerIn(1, 100_000, 100),
  },
  streamMaxPerClient: {
    name: 'STREAM_MAX_PER_CLIENT',
    defaultText: '3',
    description:
      'Ping and traceroute streams one caller may have open at the same time (counted like the rate limits: per IPv4 address, IPv6 /64 or account); one more is answered 429.',
    parse: integerIn(1, 100_000, 3),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
