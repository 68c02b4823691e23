import { type ConfigVariable, integerIn } from '../config-values.ts';

export const mailConfigVariables = {
  mailMaxInFlight: {
    name: 'MAIL_MAX_IN_FLIGHT',
    defaultText: '50',
    description:
      '/mail checks running at the same time, all callers together; one more is answered 429 (lowered at start when their sockets would not fit the open-files limit minus FD_RESERVE).',
    parse: integerIn(1, 100_000, 50),
  },
  mailMaxInFlightPerClient: {
    name: 'MAIL_MAX_IN_FLIGHT_PER_CLIENT',
    defaultText: '3',
    description:
      '/mail checks one caller may have running at the same time (counted like the rate limits: per IPv4 address, IPv6 /64 or account); one more is answered 429.',
    parse: integerIn(1, 100_000, 3),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
