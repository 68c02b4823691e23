import { type ConfigVariable, integerIn } from '../config-values.ts';

export const tlsConfigVariables = {
  tlsCheckPort: {
    name: 'TLS_CHECK_PORT',
    defaultText: '443',
    description:
      'TCP port /ssl connects to when neither `port` nor `host` names one and no STARTTLS is asked for (the spec says 443; tests point it at their own TLS server).',
    parse: integerIn(1, 65535, 443),
  },
  tlsTimeoutMs: {
    name: 'TLS_TIMEOUT_MS',
    defaultText: '10000',
    description:
      'Bounds a whole /ssl check: resolving the host, connecting, the STARTTLS exchange and the TLS handshakes (with `protocols=true`, the version probes too); past it the check fails with a 502 saying which step did not finish.',
    parse: integerIn(100, 60_000, 10_000),
  },
  tlsMaxInFlight: {
    name: 'TLS_MAX_IN_FLIGHT',
    defaultText: '200',
    description:
      '/ssl checks running at the same time, all callers together; one more is answered 429 (lowered at start when their sockets would not fit the open-files limit minus FD_RESERVE).',
    parse: integerIn(1, 100_000, 200),
  },
  tlsMaxInFlightPerClient: {
    name: 'TLS_MAX_IN_FLIGHT_PER_CLIENT',
    defaultText: '5',
    description:
      '/ssl checks one caller may have running at the same time (counted like the rate limits: per IPv4 address, IPv6 /64 or account); one more is answered 429.',
    parse: integerIn(1, 100_000, 5),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
