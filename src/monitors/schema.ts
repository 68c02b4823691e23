import { Type } from 'typebox';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { MEASUREMENT_TYPES, optionNames } from '../mesh/measurement-types.ts';
import { OptionValue, Selector } from '../mesh/schema.ts';
import { Incident, Run } from './history-schema.ts';
import { MONITOR_CONDITIONS, MONITOR_TYPE_NAMES } from './monitor-types.ts';
import { ACCESS, iso, MonitorParams, notFound, nullableIso, security, tags } from './schema-parts.ts';

const MONITOR_NAME_MAX_LENGTH = 100;
const MAX_WEBHOOKS = 5;
const MAX_EMAILS = 5;
export const MONITOR_BODY_LIMIT_BYTES = 16_384;

const conditionsByType = MONITOR_TYPE_NAMES.map((type) => {
  const schema = MONITOR_CONDITIONS[type];
  return `${type}: ${Object.keys(schema.properties)
    .map((name) => `\`${name}\``)
    .join(', ')} (${schema.description})`;
}).join('; ');

/** Every type's conditions in one object: each property is described, and checked against the type by the service. */
const allConditions = Object.assign({}, ...MONITOR_TYPE_NAMES.map((type) => MONITOR_CONDITIONS[type].properties));

const targets = MONITOR_TYPE_NAMES.map((type) => `${type}: \`${MEASUREMENT_TYPES[type].target}\``).join(', ');
const options = MONITOR_TYPE_NAMES.map(
  (type) =>
    `${type}: ${
      optionNames(type)
        .map((option) => `\`${option.name}\``)
        .join(', ') || 'none'
    }`,
).join('; ');

const Settings = {
  name: Type.String({ minLength: 1, maxLength: MONITOR_NAME_MAX_LENGTH, description: 'What the monitor is called.' }),
  type: Type.Enum(MONITOR_TYPE_NAMES, {
    type: 'string',
    description: 'The check: the route of that name (`/api/v1/http`, `/api/v1/ssl`...).',
  }),
  target: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: `The route's main parameter (${targets}).`,
    examples: ['https://example.com/'],
  }),
  options: Type.Record(Type.String(), OptionValue, {
    maxProperties: 16,
    description: `The route's other query parameters, validated by its own schema (errors name \`options.<name>\`). By type: ${options}.`,
  }),
  interval_seconds: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    description:
      "How often it runs. At least the plan's floor (MONITOR_MIN_INTERVAL_SECONDS: Free 60, Pro 30 by default); a shorter one is a 400 naming it.",
  }),
  from: Type.Array(Selector, {
    maxItems: 10,
    description:
      "Where it runs from, as a measurement's `locations`: every run has one probe per node chosen (at random within each selector, each run). Empty: the node that takes the run.",
  }),
  conditions: Type.Object(allConditions, {
    additionalProperties: false,
    description: `When it is down, by name (\`{"status_not": [200], "total_ms_over": 800}\`): down when any is true, or when the check fails at its target (the route's 502, or a name that no longer resolves). Each type has its own: ${conditionsByType}. A run netinfo could not make (no node, a cap) is an \`error\`, which changes nothing.`,
  }),
  notify: Type.Object(
    {
      webhooks: Type.Optional(
        Type.Array(Type.String({ maxLength: 2048 }), {
          maxItems: MAX_WEBHOOKS,
          uniqueItems: true,
          description:
            'http(s) URLs POSTed on each change of state, checked as every outgoing request (ALLOW_PRIVATE_TARGETS, HTTP_CHECK_PORTS) when set and at each redirect.',
        }),
      ),
      emails: Type.Optional(
        Type.Array(Type.String({ maxLength: 254 }), {
          maxItems: MAX_EMAILS,
          uniqueItems: true,
          description: 'Addresses e-mailed the same facts in plain text (needs SMTP_URL).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  paused: Type.Boolean({ description: 'A paused monitor does not run; resuming runs it at once.' }),
};

export const MonitorRequest = Type.Object(
  {
    name: Settings.name,
    type: Settings.type,
    target: Settings.target,
    options: Type.Optional(Settings.options),
    interval_seconds: Type.Optional({ ...Settings.interval_seconds, default: 300 }),
    from: Type.Optional(Settings.from),
    conditions: Type.Optional(Settings.conditions),
    notify: Type.Optional(Settings.notify),
    paused: Type.Optional(Settings.paused),
  },
  { additionalProperties: false },
);

export const MonitorChange = Type.Partial(Type.Object(Settings, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});

const Uptime = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()]);

const settingsOut = {
  id: Type.String({ description: 'The monitor id.' }),
  ...Settings,
  conditions: Type.Record(Type.String(), Type.Unknown(), {
    description: "The conditions in force (the type's defaults when none were given).",
  }),
  notify: Type.Object(
    { webhooks: Type.Array(Type.String()), emails: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  created_at: iso('When it was made.'),
  updated_at: iso('When it was last changed.'),
};

export const Monitor = Type.Object(
  {
    ...settingsOut,
    state: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()], {
      description: 'What the runs say; null before the first run that said up or down (and after the check changed).',
    }),
    state_since: nullableIso('When the state began.'),
    last_run: Type.Union([Run, Type.Null()], { description: 'The latest run (of any node).' }),
    uptime: Type.Object(
      { '24h': Uptime, '7d': Uptime, '30d': Uptime },
      {
        additionalProperties: false,
        description:
          'Percent of runs that were up, of those up or down (errors count in neither), over the last 24 hours, 7 and 30 days; null without such runs. At most MONITOR_HISTORY_DAYS back.',
      },
    ),
    incident: Type.Union([Incident, Type.Null()], { description: 'The open incident while it is down.' }),
  },
  { additionalProperties: false },
);

export const CreatedMonitor = Type.Object(
  {
    ...Monitor.properties,
    webhook_secret: Type.String({
      description:
        'The key of `X-Netinfo-Signature` (HMAC-SHA256 keyed by this string, as it is): shown this once, kept encrypted.',
    }),
  },
  { additionalProperties: false },
);

const NotificationBody = Type.Object(
  {
    event: Type.String({ enum: ['monitor.down', 'monitor.up'] }),
    monitor: Type.Object({ id: Type.String(), name: Type.String(), type: Type.String(), target: Type.String() }),
    state: Type.String({ enum: ['up', 'down'] }),
    previous_state: Type.Union([Type.String({ enum: ['up', 'down'] }), Type.Null()]),
    incident: Type.Union([Incident, Type.Null()]),
    run: Type.Union([Run, Type.Null()], { description: 'The run that showed the new state.' }),
  },
  { additionalProperties: false },
);

const NOTIFICATIONS = `**Notifications.** On each change of state (up to down, down to up; a first run notifies only when it is down),
every webhook gets a POST of JSON \`{event: "monitor.down"|"monitor.up", monitor: {id, name, type, target}, state,
previous_state, incident: {id, started_at, ended_at, cause}, run}\` (\`run\` as \`/runs\` lists it) with
\`X-Netinfo-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">\` keyed by \`webhook_secret\`,
\`X-Netinfo-Event\` and \`X-Netinfo-Delivery\` (the delivery id, the same on each retry). Check the signature and
that \`t\` is recent. Any 2xx is delivered; a 410 removes the URL from the monitor; anything else is tried again after
WEBHOOK_RETRY_BASE_SECONDS (10), then twice as long each time, for up to 24 hours. Redirects are followed (the same POST,
up to 5), each checked by the target policy. E-mail recipients get the same facts in plain text. Every attempt is at
\`/deliveries\`.`;

export const createMonitorRouteSchema = {
  summary: 'Create a monitor: a check run on a schedule, from chosen nodes, that notifies on a change',
  description: `Every \`interval_seconds\` the check runs as a measurement would (each probe a request to the type's
route on its node, with that node's rules), each probe is judged by \`conditions\`, and the run is kept for
MONITOR_HISTORY_DAYS. The first run is at once. Each due run happens once across all instances (BullMQ jobs in Redis, or
this process alone without Redis); a run lost with an instance that died is run again by another after
NODE_TIMEOUT_SECONDS.

An account may have MONITOR_LIMITS monitors (Free 10, Pro 200): one more is a 403.

${NOTIFICATIONS}

${ACCESS}`,
  operationId: 'createMonitor',
  tags,
  security,
  body: MonitorRequest,
  response: {
    201: okResponse(CreatedMonitor, 'The monitor, with its webhook secret shown this once.'),
    ...commonErrorResponses,
    403: {
      ...commonErrorResponses[400],
      description: 'The monitor quota is reached, or the request looks cross-site.',
    },
  },
};

export const listMonitorsRouteSchema = {
  summary: "The account's monitors with their state and uptime",
  description: ACCESS,
  operationId: 'getMonitors',
  tags,
  security,
  response: {
    200: okResponse(Type.Object({ monitors: Type.Array(Monitor) }, { additionalProperties: false }), 'Oldest first.'),
    ...commonErrorResponses,
  },
};

export const monitorRouteSchema = {
  summary: 'One monitor: its settings, state, uptime over 24 h / 7 d / 30 d and open incident',
  description: ACCESS,
  operationId: 'getMonitor',
  tags,
  security,
  params: MonitorParams,
  response: { 200: okResponse(Monitor, 'The monitor.'), ...commonErrorResponses, ...notFound },
};

export const changeMonitorRouteSchema = {
  summary: 'Change a monitor (any of its settings; `{"paused": true}` pauses it)',
  description: `Fields given replace the monitor's (\`options\`, \`conditions\`, \`from\` and \`notify\` whole). A change to
its type, target, options or conditions starts its state and baseline again; resuming runs it at once. ${ACCESS}`,
  operationId: 'changeMonitor',
  tags,
  security,
  params: MonitorParams,
  body: MonitorChange,
  response: { 200: okResponse(Monitor, 'The monitor as changed.'), ...commonErrorResponses, ...notFound },
};

export const deleteMonitorRouteSchema = {
  summary: 'Delete a monitor, its history and its pending notifications',
  description: ACCESS,
  operationId: 'deleteMonitor',
  tags,
  security,
  params: MonitorParams,
  response: { 204: { description: 'Deleted.', type: 'null' }, ...commonErrorResponses, ...notFound },
};

/** The POST every webhook of a monitor receives, for the OpenAPI document's `webhooks`. */
export const monitorWebhooks = {
  monitorStateChanged: {
    post: {
      summary: 'A monitor went down or came back up (sent to each of its webhooks)',
      description: NOTIFICATIONS,
      tags,
      parameters: [
        {
          name: 'X-Netinfo-Signature',
          in: 'header',
          required: true,
          description:
            '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the monitor\'s `webhook_secret`.',
          schema: { type: 'string' },
        },
        {
          name: 'X-Netinfo-Event',
          in: 'header',
          required: true,
          schema: { type: 'string', enum: ['monitor.down', 'monitor.up'] },
        },
        {
          name: 'X-Netinfo-Delivery',
          in: 'header',
          required: true,
          description: 'The same on every retry of one notification.',
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: NotificationBody } } },
      responses: {
        '2XX': { description: 'Delivered.' },
        '410': { description: 'Gone: the URL is removed from the monitor.' },
        default: { description: 'Tried again after WEBHOOK_RETRY_BASE_SECONDS, doubling, for up to 24 hours.' },
      },
    },
  },
};
