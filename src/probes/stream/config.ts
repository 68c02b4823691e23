import { type ConfigVariable, integerIn } from '../../config-values.ts';

/** Settings of the live ping, traceroute and MTR streams (each stream runs one system process). */
export const streamConfigVariables = {
  streamMaxConcurrent: {
    name: 'STREAM_MAX_CONCURRENT',
    defaultText: '100',
    description:
      'Ping, traceroute and MTR streams open at the same time, all callers together (each runs one process, or for a TCP ping one socket at a time); one more is answered 429.',
    parse: integerIn(1, 100_000, 100),
  },
  streamMaxPerClient: {
    name: 'STREAM_MAX_PER_CLIENT',
    defaultText: '3',
    description:
      'Ping, traceroute and MTR streams one caller may have open at the same time (counted like the rate limits: per IPv4 address, IPv6 /64 or account); one more is answered 429. On a busy server fewer: a caller holding n may open another only while more than n / this of STREAM_MAX_CONCURRENT is free, so callers with none still get the slots left.',
    parse: integerIn(1, 100_000, 3),
  },
  streamSlotLeaseSeconds: {
    name: 'STREAM_SLOT_LEASE_SECONDS',
    defaultText: '15',
    description:
      'With REDIS_URL: how long a stream slot outlives the last renewal by its instance (renewed every third of it while the stream runs), so the slots of an instance that crashed are free again within this time.',
    parse: integerIn(1, 3600, 15),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
