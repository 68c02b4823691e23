import { type ConfigVariable, integerIn } from '../../config-values.ts';

/** Settings of traceroute alone (the stream caps it shares with ping are in probes/stream/config.ts). */
export const tracerouteConfigVariables = {
  tracerouteHostnameWaitMs: {
    name: 'TRACEROUTE_HOSTNAME_WAIT_MS',
    defaultText: '200',
    description:
      'How long a traceroute hop (and an MTR hop, the first time its address shows up) may wait for its reverse name (PTR) before it is sent with the address as its hostname; the lookup goes on in the background and fills the DNS cache. 0: only names already cached.',
    parse: integerIn(0, 5000, 200),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
