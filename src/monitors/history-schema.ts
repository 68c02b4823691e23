import { type TSchema, Type } from 'typebox';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { ACCESS, iso, MonitorParams, notFound, nullableIso, security, tags } from './schema-parts.ts';

export const Incident = Type.Object(
  {
    id: Type.String(),
    started_at: iso('When the monitor went down.'),
    ended_at: nullableIso('When it came back up; null while it lasts.'),
    cause: Type.String({ description: 'Why it went down: the node, and the condition or failure.' }),
  },
  { additionalProperties: false },
);

const RunState = Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('error')]);

export const Run = Type.Object(
  {
    id: Type.String(),
    due_at: iso('The time the run was due (its slot).'),
    started_at: iso('When it started.'),
    node: Type.String({ description: 'Where it ran.' }),
    duration_ms: Type.Integer({ description: 'From the start to the result.' }),
    response_ms: Type.Union([Type.Number(), Type.Null()], {
      description:
        "The check's own latency: HTTP `timings.total`, ping's average, MTR's last hop's average; else null.",
    }),
    state: RunState,
    cause: Type.Union([Type.String(), Type.Null()], { description: 'Why it is down or an error; null when up.' }),
    summary: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The result in brief: http {url, status, total_ms, body_bytes, body_found}; ssl {valid, validation_error, days_remaining, valid_to, problems}; dns {status, record_type, values}; blacklist {listed, listed_on, errors}; mail {exists, problems}; ping {alive, packet_loss, min_ms, avg_ms, max_ms}; mtr {reached, hops, worst_hop}; a failed check {error}.',
    }),
  },
  { additionalProperties: false },
);

export const monitorRunsRouteSchema = {
  summary: "A monitor's runs, newest first, a page at a time",
  description: `One run per node per due time. \`next\` is the cursor of the next (older) page. ${ACCESS}`,
  operationId: 'getMonitorRuns',
  tags,
  security,
  params: MonitorParams,
  querystring: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Runs per page.' })),
    before: Type.Optional(
      Type.String({ maxLength: 64, pattern: '^[0-9]+-[0-9a-f]+$', description: "The previous page's `next`." }),
    ),
  }),
  response: {
    200: okResponse(
      Type.Object(
        {
          runs: Type.Array(Run),
          next: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
        },
        { additionalProperties: false },
      ),
      'Newest first.',
    ),
    ...commonErrorResponses,
    ...notFound,
  },
};

const Delivery = Type.Object(
  {
    id: Type.String({ description: 'Sent as X-Netinfo-Delivery.' }),
    url: Type.String({ description: 'The webhook, or `mailto:` and the address.' }),
    event: Type.String({ enum: ['monitor.down', 'monitor.up'] }),
    created_at: iso('When the change made it.'),
    state: Type.String({
      enum: ['pending', 'delivered', 'failed', 'removed'],
      description: '`failed`: every attempt over 24 hours failed; `removed`: the receiver answered 410.',
    }),
    next_attempt_at: nullableIso('The next attempt while pending.'),
    attempts: Type.Array(
      Type.Object(
        {
          at: iso('When it was tried.'),
          status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP (or SMTP) status." }),
          error: Type.Union([Type.String(), Type.Null()], {
            description: 'Why it failed before a status, or after it.',
          }),
          duration_ms: Type.Integer(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The last 100 of a monitor's incidents or deliveries, newest first, as `{<name>: [...]}`. */
function latestRoute<T extends TSchema>(summary: string, operationId: string, name: string, item: T) {
  return {
    summary,
    description: `The last 100. ${ACCESS}`,
    operationId,
    tags,
    security,
    params: MonitorParams,
    response: {
      200: okResponse(Type.Object({ [name]: Type.Array(item) }, { additionalProperties: false }), 'Newest first.'),
      ...commonErrorResponses,
      ...notFound,
    },
  };
}

export const monitorIncidentsRouteSchema = latestRoute(
  "A monitor's incidents (each time it went down), newest first",
  'getMonitorIncidents',
  'incidents',
  Incident,
);

export const monitorDeliveriesRouteSchema = latestRoute(
  "A monitor's notifications and every attempt to deliver them, newest first",
  'getMonitorDeliveries',
  'deliveries',
  Delivery,
);
