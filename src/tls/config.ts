import { type ConfigVariable, integerIn } from '../config-values.ts';
import { inFlightConfigVariables } from '../limits/in-flight.ts';
import { SSL_TOOL } from './tool.ts';

const tlsCaps = inFlightConfigVariables(SSL_TOOL, { all: 200, perClient: 5 });

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
  tlsMaxInFlight: tlsCaps.all,
  tlsMaxInFlightPerClient: tlsCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;
