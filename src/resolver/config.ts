import { isIP } from 'node:net';
import { boolean, type ConfigVariable, integerIn, text } from '../config-values.ts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function zoneName(raw: string | undefined): string | null {
  const value = text('')(raw).toLowerCase().replace(/\.$/, '');
  if (value === '') return null;
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || value.length > 200) {
    throw new Error(`must be a DNS name of two labels or more, such as probe.example.com, got "${raw}"`);
  }
  return value;
}

function addressList(raw: string | undefined): string[] {
  const values = text('')(raw)
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  const bad = values.filter((value) => isIP(value) === 0);
  if (bad.length > 0) throw new Error(`must be IPv4 or IPv6 addresses, comma-separated, got "${bad[0]}"`);
  return values;
}

export const resolverConfigVariables = {
  resolverTestZone: {
    name: 'RESOLVER_TEST_ZONE',
    defaultText: 'empty',
    description:
      'A zone delegated to this service (`probe.example.com`) for the "which resolver am I using" test: the service answers DNS for it itself, signed (docs/deployment.md says how to delegate it). Empty: the test is off, /tools/resolver says so and /api/v1/resolver/{token} answers 503.',
    parse: zoneName,
  },
  resolverTestDnsPort: {
    name: 'RESOLVER_TEST_DNS_PORT',
    defaultText: '53',
    description:
      "UDP and TCP port of the zone's DNS listener (resolvers ask port 53; a port below 1024 needs root or CAP_NET_BIND_SERVICE).",
    parse: integerIn(1, 65535, 53),
  },
  resolverTestDnsHost: {
    name: 'RESOLVER_TEST_DNS_HOST',
    defaultText: '`::`',
    description:
      'Listen address of the DNS listener; `::` takes IPv4 and IPv6 (`0.0.0.0` where the machine has no IPv6).',
    parse: (raw: string | undefined): string => {
      const value = text('::')(raw);
      if (isIP(value) === 0) throw new Error(`must be an IP address, got "${value}"`);
      return value;
    },
  },
  resolverTestAddresses: {
    name: 'RESOLVER_TEST_ADDRESSES',
    defaultText: 'empty',
    description:
      "This service's public addresses, IPv4 and/or IPv6, comma-separated: the A and AAAA records of the zone's test names and of its name server `ns.<zone>`. Required with RESOLVER_TEST_ZONE.",
    parse: addressList,
  },
  resolverTestDsPublished: {
    name: 'RESOLVER_TEST_DS_PUBLISHED',
    defaultText: '`false`',
    description:
      'Set to true once the DS record the service logs at start is in the parent zone. Until then the zone is unsigned to every resolver, validating or not, both test names resolve, and the test says it cannot tell whether a resolver validates DNSSEC (rather than that it does not).',
    parse: boolean(false),
  },
  resolverTestTokenMinutes: {
    name: 'RESOLVER_TEST_TOKEN_MINUTES',
    defaultText: '10',
    description: 'How long what the resolvers of a test token did is kept (from the first query for it).',
    parse: integerIn(1, 1440, 10),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
