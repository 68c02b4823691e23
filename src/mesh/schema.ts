import { Type } from 'typebox';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { CONTINENT_CODES } from './location.ts';
import { MEASUREMENT_TYPE_NAMES, MEASUREMENT_TYPES, optionNames } from './measurement-types.ts';

const Location = Type.Object(
  {
    country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 code.', examples: ['DE'] })),
    city: Type.Optional(Type.String({ examples: ['Frankfurt'] })),
    continent: Type.Optional(Type.String({ description: `One of ${CONTINENT_CODES.join(' ')}.` })),
    latitude: Type.Optional(Type.Number()),
    longitude: Type.Optional(Type.Number()),
  },
  {
    additionalProperties: false,
    description:
      "Where the node is: its NODE_LOCATION, else what the node's own IP data says of its public address; empty when neither knows.",
  },
);

const Asn = Type.Union([Type.Integer(), Type.Null()], {
  description: "The node's autonomous system, from its own IP data; null when unknown.",
});

export const NodeBody = Type.Object(
  {
    name: Type.String({ description: 'NODE_NAME: unique in the mesh.' }),
    location: Location,
    asn: Asn,
    as_name: Type.Union([Type.String(), Type.Null()], { description: "The autonomous system's organisation." }),
    tags: Type.Array(Type.String(), { description: 'NODE_TAGS.' }),
    tools: Type.Array(Type.String(), {
      description:
        'The probe tools installed on the node (ping, traceroute, mtr): a node without one gets no probes of it. TCP ping, DNS, HTTP and TLS need none.',
    }),
    ipv4: Type.Boolean({ description: 'The node has a public IPv4 address on an interface (or NODE_ADDRESS is one).' }),
    ipv6: Type.Boolean({ description: 'The node has a public IPv6 address on an interface (or NODE_ADDRESS is one).' }),
    raw_sockets: Type.Boolean({
      description: 'The service may open raw sockets (CAP_NET_RAW): ICMP and TCP traceroute work there.',
    }),
    version: Type.String({ description: "The node's netinfo version." }),
  },
  { additionalProperties: false },
);

const unavailable = {
  503: {
    ...commonErrorResponses[400],
    description: "The mesh's Redis is not answering: nothing was made, nothing was charged beyond this request.",
  },
};

export const nodesRouteSchema = {
  summary: 'The nodes of the mesh: where measurements can run from',
  description:
    'Every instance that shares REDIS_URL and MESH_SECRET is a node; each announces itself every NODE_HEARTBEAT_SECONDS and leaves the list when silent for NODE_TIMEOUT_SECONDS. Without Redis the list is this instance alone. Sorted by name.',
  operationId: 'listNodes',
  tags: ['measurements'],
  response: {
    200: okResponse(Type.Object({ nodes: Type.Array(NodeBody) }, { additionalProperties: false }), 'The live nodes.'),
    ...commonErrorResponses,
    ...unavailable,
  },
};

export const Selector = Type.Object(
  {
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2 code.' })),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'City name (case-insensitive).' })),
    continent: Type.Optional(Type.Enum(CONTINENT_CODES, { type: 'string', description: 'Continent code.' })),
    asn: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
    node: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'A node by name.' })),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'A NODE_TAGS tag.' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000, description: 'Probes from this selector at most (default 1).' }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Nodes where every field given matches (country, city and continent case-insensitively); one with `limit` alone matches every node. Up to `limit` of them (default 1) that can run the type and are not chosen by an earlier selector are picked at random. A selector that matches no node, or only nodes without the tool, is a 400 naming it.',
  },
);

export const OptionValue = Type.Union([Type.String({ maxLength: 2048 }), Type.Number(), Type.Boolean()]);

const typeList = MEASUREMENT_TYPE_NAMES.map(
  (name) => `\`${name}\`: ${MEASUREMENT_TYPES[name].route} (target: \`${MEASUREMENT_TYPES[name].target}\`)`,
).join('; ');

const optionList = MEASUREMENT_TYPE_NAMES.map((name) => {
  const names = optionNames(name).map((option) => `\`${option.name}\`${option.required ? ' (required)' : ''}`);
  return `${name}: ${names.join(', ')}`;
}).join('; ');

export const MeasurementRequest = Type.Object(
  {
    type: Type.Enum(MEASUREMENT_TYPE_NAMES, {
      type: 'string',
      description: `What to run; each type is one single-node route: ${typeList}.`,
    }),
    target: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "The route's main parameter: the host for ping, traceroute, MTR, DNS and TLS; the URL for HTTP; the IPv4 address for blacklist; the domain for mail.",
      examples: ['example.com'],
    }),
    options: Type.Optional(
      Type.Record(Type.String(), OptionValue, {
        maxProperties: 16,
        description: `The route's other query parameters (not its target, nor \`api_key\`), by name: \`{"count": 3, "protocol": "tcp", "port": 443}\` for ping, \`{"record_type": "MX"}\` for DNS. Validated by the route's own schema, as their text (3 is "3"), so the rules and 400s are the route's, named \`options.<name>\`. By type (each described at its route): ${optionList}. Checks the route makes on values together (ICMP ping with a \`port\`) and on a TLS target beyond its schema are the probe node's, and fail that probe; a ping, traceroute or MTR host, and an HTTP URL (scheme, user name, HTTP_CHECK_PORTS), are checked here as their routes check them.`,
      }),
    ),
    locations: Type.Optional(
      Type.Array(Selector, {
        maxItems: 50,
        description: 'Where to run from. Absent or empty: this node alone.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Probes at most, in all (default: the caller's cap, MEASUREMENT_LIMITS: public 5, free 20, pro 100). Above the cap it is a 400.",
      }),
    ),
  },
  { additionalProperties: false },
);

const Probe = Type.Object(
  {
    node: Type.String(),
    location: Location,
    asn: Asn,
  },
  { additionalProperties: false },
);

const MEASUREMENT_ID = { pattern: '^[0-9a-f]{32}$', description: 'The measurement id (32 hex digits).' };

export const createMeasurementRouteSchema = {
  summary: 'Run a ping, traceroute, MTR, DNS, HTTP, TLS, blacklist or mail check from several nodes at once',
  description: `Chooses the probes (see \`locations\`), queues one job per probe and answers at once; the probes
start on their nodes within milliseconds. Watch them live at \`/api/v1/measurements/{id}/events\`, or read the state at
\`/api/v1/measurements/{id}\`.

**Cost.** A measurement counts as one request per probe in the rate limits (the POST itself adds nothing), all or
nothing: a 429 when fewer remain, and then nothing runs. Reading its events or state counts one request each, like any
request.

**Each node applies its own rules**: its target policy (ALLOW_PRIVATE_TARGETS), its stream caps (counted against the
caller: the account of an API key, else the address), its time limits. A node that refuses fails that probe with the route's own message and status, in the
probe's \`error\` event and result.

**Every measurement ends.** Each probe runs at most once. A node that dies mid-probe is noticed within two heartbeats
and its probe fails ("went silent"); a probe no node takes within NODE_TIMEOUT_SECONDS fails too. How jobs travel and
are signed is the operators' business (docs/scaling.md).`,
  operationId: 'createMeasurement',
  tags: ['measurements'],
  body: MeasurementRequest,
  response: {
    202: okResponse(
      Type.Object(
        {
          id: Type.String(MEASUREMENT_ID),
          probes: Type.Array(Probe, { description: 'The probes chosen, in the order of `locations`.' }),
        },
        { additionalProperties: false },
      ),
      'Accepted: the probes are queued.',
    ),
    ...commonErrorResponses,
    400: {
      ...commonErrorResponses[400],
      description:
        "An invalid body or option (named), a `limit` above the caller's cap, or a selector that matches no node able to run the type (named).",
    },
  },
};

const MeasurementParams = Type.Object({ id: Type.String(MEASUREMENT_ID) });

const notFound = {
  404: {
    ...commonErrorResponses[400],
    description: 'No such measurement: unknown, or older than MEASUREMENT_TTL_SECONDS.',
  },
  ...unavailable,
};

const ProbeState = Type.Object(
  {
    node: Type.String(),
    location: Location,
    asn: Asn,
    status: Type.Union([Type.Literal('in-progress'), Type.Literal('finished'), Type.Literal('failed')]),
    result: Type.Optional(
      Type.Unknown({
        description:
          "Finished: what the route answers. Ping, traceroute, MTR: the stream's `done` event without its `type`; DNS, HTTP, TLS: the route's JSON answer.",
      }),
    ),
    error: Type.Optional(Type.String({ description: 'Failed: why, in words.' })),
    http_status: Type.Optional(
      Type.Integer({ description: "Failed because the node's route refused: the status it answered (400, 429, 502)." }),
    ),
  },
  { additionalProperties: false },
);

export const measurementRouteSchema = {
  summary: "The state of a measurement, and each probe's result",
  description: 'Kept MEASUREMENT_TTL_SECONDS (1 h by default) after it was created.',
  operationId: 'getMeasurement',
  tags: ['measurements'],
  params: MeasurementParams,
  response: {
    200: okResponse(
      Type.Object(
        {
          id: Type.String(MEASUREMENT_ID),
          type: Type.String(),
          target: Type.String(),
          options: Type.Record(Type.String(), Type.String()),
          created_at: Type.String({ format: 'date-time' }),
          status: Type.Union([Type.Literal('in-progress'), Type.Literal('finished')], {
            description: '`finished` once every probe has finished or failed.',
          }),
          probes: Type.Array(ProbeState),
        },
        { additionalProperties: false },
      ),
      'The measurement.',
    ),
    ...commonErrorResponses,
    ...notFound,
  },
};

export const measurementEventsRouteSchema = {
  summary: 'Every probe of a measurement, live, as one Server-Sent Events stream',
  description: `Each probe's events as its node sends them, in the order they arrive, each with \`node\` (the node's
name) added: for ping, traceroute and MTR the events of their single-node streams (\`start\`, \`reply\`, \`timeout\`,
\`hop\`..., \`done\`, or \`error\`); for DNS, HTTP and TLS one \`{"type": "result", "node", "result"}\` with the
route's answer, or an \`error\`. An \`error\` is a probe's last event and carries \`status\` when the node's route
refused it (400, 429, 502) before running anything. After every probe's last event comes one
\`{"type": "measurement_done"}\`, and the stream ends: call \`close()\` there.

**Resuming.** Every event has an \`id:\` (\`<milliseconds>-<sequence>\`). A client that reconnects with
\`Last-Event-ID\` gets the events after it, nothing twice, and nothing runs again: the stream is a reading of what the
probes sent, kept MEASUREMENT_TTL_SECONDS. A reconnect after \`measurement_done\` is answered \`204 No Content\`, which
tells EventSource to stop. Without \`Last-Event-ID\` the stream starts from the first event. The key may be given as
\`api_key\` for EventSource, as on the probe streams.`,
  operationId: 'streamMeasurement',
  tags: ['measurements'],
  params: MeasurementParams,
  querystring: Type.Object({
    api_key: Type.Optional(
      Type.String({ maxLength: 200, description: 'An API key, for EventSource (which sends no headers).' }),
    ),
  }),
  response: {
    200: okResponse(
      {
        content: {
          'text/event-stream': {
            schema: Type.Object(
              { type: Type.String(), node: Type.Optional(Type.String()) },
              { description: 'A probe event with `node`, or `measurement_done`.' },
            ),
          },
        },
      },
      'The events (text/event-stream).',
    ),
    204: Type.Null({ description: 'A reconnect after `measurement_done`: nothing more will come.' }),
    ...commonErrorResponses,
    ...notFound,
  },
};
