import { Type } from 'typebox';
import { callerSpecificHeaders, commonErrorResponses, okResponse } from '../http/schemas.ts';
import { TOKEN_PATTERN } from './tokens.ts';

export const BEACON_PATH = '/resolver-beacon';
export const TOKEN_HINT = 'the random name of one test: 20 to 32 characters a-z and 2-7 (lowercase base32)';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const Resolver = Type.Object(
  {
    ip: Type.String({ description: 'The address the query came from: the resolver itself, or its egress.' }),
    ecs: nullableString(
      'The EDNS client subnet it sent on your behalf (`192.0.2.0/24`): which part of your address it tells authoritative servers. null: none.',
    ),
    asn: nullableString('Its autonomous system, as /api/v1/json says (`AS13335`).'),
    provider: nullableString("Its network's organisation (`Cloudflare, Inc.`)."),
    country: nullableString('Its country, in English.'),
    city: nullableString('Its city, in English.'),
    hostname: nullableString('Its reverse DNS name.'),
    seen: Type.String({ description: 'When it first asked, ISO 8601 UTC.' }),
  },
  { additionalProperties: false },
);

const ResolverAnswer = Type.Object(
  {
    resolvers: Type.Array(Resolver, { description: 'Every resolver that asked for a name of the test, in order.' }),
    dnssec: Type.Object(
      {
        validating: Type.Union([Type.Boolean(), Type.Null()], {
          description:
            "true: the browser reached the correctly signed name and not the one with broken signatures, so a resolver on the way refused bogus data. false: it reached both (no resolver validates). null: it reached neither (the page's requests did not arrive, or have not yet), or only the broken one, or the zone's DS is not published (`ds_published` false: then the zone is unsigned to every resolver and both names resolve whether it validates or not), so nothing can be said.",
        }),
        signed: Type.Boolean({ description: 'An HTTP request for the correctly signed name (`ok-<token>`) arrived.' }),
        broken: Type.Boolean({
          description: 'An HTTP request for the name with broken signatures (`bad-<token>`) arrived.',
        }),
        ds_published: Type.Boolean({
          description:
            "The operator says the zone's DS record is in the parent zone (RESOLVER_TEST_DS_PUBLISHED), so a validating resolver has a chain of trust to the zone's key.",
        }),
      },
      { additionalProperties: false },
    ),
    expires: Type.String({ description: 'When the test is forgotten, ISO 8601 UTC.' }),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Which DNS resolvers answer for whoever looks up the names of one test. The zone \`RESOLVER_TEST_ZONE\` is delegated to this service, which answers its DNS itself (UDP and TCP, port \`RESOLVER_TEST_DNS_PORT\`), signed with DNSSEC (ECDSA P-256): \`<token>.<zone>\` and \`ok-<token>.<zone>\` are signed correctly, \`bad-<token>.<zone>\` with broken signatures, and all three point at this service. Every resolver that asks for one of them is recorded with the client subnet (ECS) it sends, from its first query for \`RESOLVER_TEST_TOKEN_MINUTES\` minutes; each is described as /api/v1/json describes an address.

A test: make a token (the page /tools/resolver makes 24 random base32 characters in the browser: the token is the only secret, so it is never asked of the server), let the browser fetch \`https://ok-<token>.<zone>${BEACON_PATH}\` and \`https://bad-<token>.<zone>${BEACON_PATH}\` (or look the names up with any client), then read this. A validating resolver answers SERVFAIL for the broken name, so the browser never reaches it: that is how \`dnssec.validating\` is learnt.

\`dig TXT whoami.<zone>\` answers the address of the resolver asking, and as a second string the client subnet it sent (\`edns0-client-subnet 192.0.2.0/24\`), as Google's \`o-o.myaddr.l.google.com\` does. The listener answers nothing but its zone (REFUSED), never recurses, answers ANY with one HINFO (RFC 8482), and truncates a UDP answer over 512 bytes (without EDNS) or over the size the query advertises (at most 1232).`;

export const resolverRouteSchema = {
  summary: 'Which DNS resolvers looked up the names of a test, and whether they validate DNSSEC',
  description: DESCRIPTION,
  operationId: 'getResolverTest',
  tags: ['dns'],
  params: Type.Object({
    token: Type.String({ description: `The test's token: ${TOKEN_HINT}.`, pattern: TOKEN_PATTERN }),
  }),
  response: {
    200: okResponse(ResolverAnswer, 'The resolvers seen so far.'),
    ...commonErrorResponses,
    404: {
      ...commonErrorResponses[400],
      description: 'No resolver asked for this token, or it expired (asking again later may find it).',
    },
    503: { ...commonErrorResponses[400], description: 'The operator has not set RESOLVER_TEST_ZONE.' },
  },
};

export const beaconRouteSchema = {
  hide: true,
  response: { 204: { description: 'Recorded, when the Host is a name of a test.', headers: callerSpecificHeaders } },
};
