import { Type } from 'typebox';
import { abuseContactObject } from '../../abuse/schema.ts';
import { NetworkRpkiBody } from '../../rpki/schema.ts';

/**
 * The response of GET /api/v1/json. Every rule a client needs is written here, once, and reaches
 * the OpenAPI document from here. Fields whose data is missing are omitted, never guessed.
 */

export const CONNECTION_TYPES = ['residential', 'business', 'hosting', 'education', 'mobile', 'government'] as const;

export const SECURITY_SOURCES = [
  'tor-exit-list',
  'vpn-networks',
  'vpn-asns',
  'datacenter-networks',
  'datacenter-asns',
  'proxy-list',
  'anonymous-ip-database',
] as const;

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

const Location = Type.Object(
  {
    country: Type.Optional(Type.String({ description: 'Country name in English.', examples: ['United States'] })),
    countryCode: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 country code.', examples: ['US'] })),
    city: Type.Optional(Type.String({ description: 'City name in English.' })),
    region: Type.Optional(
      Type.String({ description: 'The largest subdivision (state, province, region), in English.' }),
    ),
    regionCode: Type.Optional(Type.String({ description: "The subdivision's ISO 3166-2 code (without the country)." })),
    continent: Type.Optional(Type.String({ description: 'Continent name in English.', examples: ['North America'] })),
    continentCode: Type.Optional(Type.String({ description: 'Two-letter continent code (AF AN AS EU NA OC SA).' })),
    latitude: Type.Optional(Type.Number({ description: 'Approximate latitude, WGS 84 degrees.' })),
    longitude: Type.Optional(Type.Number({ description: 'Approximate longitude, WGS 84 degrees.' })),
    accuracyRadius: Type.Optional(
      Type.Integer({
        description:
          'Kilometres around latitude/longitude within which the address is likely to be. Large values (1000) mean the coordinates are only a country centre.',
      }),
    ),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone name.', examples: ['America/Chicago'] })),
    postalCode: Type.Optional(Type.String({ description: 'Postal code, where the data has one.' })),
  },
  {
    additionalProperties: false,
    description:
      'Where the address is registered or used, per the City database. Approximate: never the location of a person or a household. Omitted for bogons and for addresses the database does not know.',
  },
);

const Network = Type.Object(
  {
    provider: Type.Optional(
      Type.String({
        description: 'The organisation of the autonomous system (the ISP name, with a GeoIP2-ISP database).',
      }),
    ),
    asn: Type.Optional(
      Type.String({ pattern: '^AS[0-9]+$', description: 'The autonomous system number.', examples: ['AS15169'] }),
    ),
    route: Type.Optional(
      Type.String({
        description:
          'The network of the ASN record that holds the address, as a CIDR: the announced prefix (e.g. `8.8.8.0/24`), or a larger block where the data merges neighbouring prefixes of one AS. Omitted when the record is a range that is no single CIDR.',
      }),
    ),
    rpki: Type.Optional(NetworkRpkiBody),
    abuse: Type.Optional(
      abuseContactObject(
        `Whom to write to about abuse from the address, as /api/v1/abuse answers it. Only when \`fields\` names \`network.abuse\` or one of its children (\`fields=ip,network.abuse.email\`): a registry is asked over RDAP, so a plain answer, \`fields=network\` and a batch ask nobody (a batch refuses the name with a 400). Omitted for special-purpose addresses and when the registry names no contact; an RDAP failure is a 502. How the contact is found and kept: /api/v1/abuse.`,
      ),
    ),
  },
  { additionalProperties: false, description: 'Who routes the address, per the ASN database.' },
);

const Security = Type.Object(
  {
    bogon: Type.Boolean({
      description:
        'True for an address that cannot be a public internet peer: private, loopback, link-local, CGNAT, documentation, benchmarking, reserved, multicast and other special-purpose ranges that are not globally reachable (IANA registries). Always present.',
    }),
    proxy: Type.Optional(
      Type.Boolean({
        description:
          "The address relays other people's traffic: a Tor exit, a VPN endpoint, or an open proxy (FireHOL's open-proxy list, FEED_PROXY_URL; or a public or residential proxy in a GeoIP2 Anonymous IP database, GEOIP_ANONYMOUS_DB). True whenever `tor` or `vpn` is; false once the Anonymous IP database, or an open-proxy list with entries of the address's family, is loaded and does not list the address (FireHOL's list is IPv4 only, so without the database `proxy` is omitted for IPv6 addresses that are no Tor exit or VPN); omitted while neither is.",
      }),
    ),
    vpn: Type.Optional(
      Type.Boolean({
        description:
          'The address is in a network of a commercial VPN provider (X4BNet VPN list, or its AS is a listed VPN provider), or the Anonymous IP database says so.',
      }),
    ),
    tor: Type.Optional(
      Type.Boolean({
        description:
          "The address is a Tor exit relay (the Tor Project's bulk exit list, or the Anonymous IP database). The Tor list has only IPv4 addresses, so without the database `tor` is omitted for IPv6 clients.",
      }),
    ),
    hosting: Type.Optional(
      Type.Boolean({
        description:
          'The address belongs to a hosting provider or datacenter (X4BNet datacenter list or ASN list, or the Anonymous IP database).',
      }),
    ),
    sources: Type.Array(literals(SECURITY_SOURCES, 'A loaded source.'), {
      description:
        "The loaded sources consulted for this address. An indicator is true when any of them lists the address, false when one that covers the address family does not, and omitted when none could say: a false is never guessed. Feeds arrive with the first data refresh (at startup when none was downloaded yet, DATA_REFRESH_HOURS) or `npm run data:update`; until then only `bogon` is present. `proxy-list` is FireHOL's open-proxy list.",
    }),
  },
  { additionalProperties: false, description: 'Security indicators.' },
);

const Special = Type.Object(
  {
    kind: Type.String({ description: 'private, loopback, link-local, cgnat, documentation, transition, anycast, ...' }),
    range: Type.String({ description: 'The registry entry the address falls in, e.g. `10.0.0.0/8`.' }),
    name: Type.String({ description: "The IANA registry's name for it, e.g. `Private-Use`." }),
    rfc: Type.String({ description: 'The RFC that defines it.' }),
  },
  {
    additionalProperties: false,
    description:
      'Present when the address is in an IANA special-purpose range; for those that are not globally reachable `security.bogon` is true and location, network, type and hostname are omitted.',
  },
);

export const IpInfoBody = Type.Object(
  {
    ip: Type.String({
      description:
        "The address the answer is about: for /json/{ip} and batch items the address asked about, in its normal form (RFC 5952 for IPv6). For /json the client's address, as the service sees it (the socket peer, or the forwarded client when the peer is a trusted proxy). For an IPv4 client (including IPv4-mapped IPv6) its IPv4 address. For an IPv6 client its IPv6 address: one connection reveals one address, and the service cannot know the client's IPv4 address.",
    }),
    ipv6: Type.Optional(
      Type.String({
        description:
          'Present only when the address is IPv6 (the client connects over IPv6, or the address asked about is IPv6): that address (the same as `ip`).',
      }),
    ),
    mappedFrom: Type.Optional(
      Type.String({
        description:
          'Present only when the address asked about (`/json/{ip}`, a batch item, `?ip=`) was an IPv4-mapped IPv6 address such as `::ffff:8.8.8.8`: that address as sent. `ip` is then the IPv4 address it maps, and the whole answer is about that IPv4 address (a mapped address is how an IPv6 socket shows an IPv4 peer).',
      }),
    ),
    hostname: Type.Optional(
      Type.String({
        description:
          "The reverse DNS (PTR) name of `ip`, as published by the address's owner and not forward-confirmed. Omitted when there is none, when it does not arrive within HOSTNAME_TIMEOUT_MS, and for bogons.",
      }),
    ),
    type: Type.Optional(
      literals(
        CONNECTION_TYPES,
        'What kind of network the address is on. The first rule that applies decides: (1) MaxMind user type, with a GeoIP2 Enterprise database; (2) hosting when a datacenter feed or the Anonymous IP database lists the address or its AS; (3) MaxMind connection type, with a Connection-Type database (Cable/DSL residential, Cellular mobile, Corporate business); (4) words in the AS organisation name (university/college/school education; government/ministry government; mobile/cellular/wireless mobile; hosting/datacenter/cloud/server hosting). Omitted when no rule applies: a wrong "residential" is worse than none.',
      ),
    ),
    class: Type.Optional(
      literals(
        ['A', 'B', 'C', 'D', 'E'],
        'The historical classful-addressing class of an IPv4 address, from its first octet: A 0-127, B 128-191, C 192-223, D 224-239 (multicast), E 240-255 (reserved). Routing has been classless (CIDR) since 1993, so it says nothing about the network size. Omitted for IPv6.',
      ),
    ),
    special: Type.Optional(Special),
    location: Type.Optional(Location),
    network: Type.Optional(Network),
    security: Security,
  },
  { additionalProperties: false },
);
