import { blacklistRouteSchema } from '../blacklist/schema.ts';
import { dnsRouteSchema } from '../dns/schema.ts';
import type { PortRanges } from '../httpcheck/config.ts';
import { httpCheckRouteSchema } from '../httpcheck/schema.ts';
import { parseCheckUrl } from '../httpcheck/target-url.ts';
import { mailRouteSchema } from '../mail/schema.ts';
import { mtrRouteSchema } from '../probes/mtr/schema.ts';
import { pingRouteSchema } from '../probes/ping/schema.ts';
import { parseProbeHost } from '../probes/stream/host-param.ts';
import { tracerouteRouteSchema } from '../probes/traceroute/schema.ts';
import { sslRouteSchema } from '../tls/schema.ts';

/**
 * What a measurement can run: each type is one single-node route, whose query parameters are the
 * measurement's `target` (the route's main parameter) and `options` (the others), validated by that
 * route's own schema, run on each probe node as a request to that route.
 */
export const MEASUREMENT_TYPES = {
  ping: { route: '/api/v1/ping', target: 'host', stream: true, query: pingRouteSchema.querystring },
  traceroute: { route: '/api/v1/traceroute', target: 'host', stream: true, query: tracerouteRouteSchema.querystring },
  mtr: { route: '/api/v1/mtr', target: 'host', stream: true, query: mtrRouteSchema.querystring },
  dns: { route: '/api/v1/dns', target: 'host', stream: false, query: dnsRouteSchema.querystring },
  http: { route: '/api/v1/http', target: 'url', stream: false, query: httpCheckRouteSchema.querystring },
  ssl: { route: '/api/v1/ssl', target: 'host', stream: false, query: sslRouteSchema.querystring },
  blacklist: { route: '/api/v1/blacklist', target: 'ip', stream: false, query: blacklistRouteSchema.querystring },
  mail: { route: '/api/v1/mail', target: 'domain', stream: false, query: mailRouteSchema.querystring },
} as const satisfies Record<
  string,
  {
    route: string;
    target: string;
    stream: boolean;
    query: { properties: Record<string, unknown>; required?: string[] };
  }
>;

export type MeasurementType = keyof typeof MEASUREMENT_TYPES;
export const MEASUREMENT_TYPE_NAMES = Object.keys(MEASUREMENT_TYPES) as MeasurementType[];

/** Query parameters that are not options: the caller's key is checked and charged where the measurement is taken, and never travels to another node. */
export const NOT_OPTIONS = new Set(['api_key']);

/** The system tool a type needs on a node (ping over TCP needs none); null: every node can. */
export function requiredTool(type: MeasurementType, options: Readonly<Record<string, string>>): string | null {
  if (type === 'ping') return options.protocol === 'tcp' ? null : 'ping';
  if (type === 'traceroute' || type === 'mtr') return type;
  return null;
}

/** `count, family, protocol, port` (`record_type` required): a type's options, from its route's schema. */
export function optionNames(type: MeasurementType): { name: string; required: boolean }[] {
  const { query, target } = MEASUREMENT_TYPES[type];
  const required: readonly string[] = 'required' in query ? (query.required as string[]) : [];
  return Object.keys(query.properties)
    .filter((name) => name !== target && !NOT_OPTIONS.has(name))
    .map((name) => ({ name, required: required.includes(name) }));
}

/**
 * Why the target is one the type's route would refuse before running anything, as far as the
 * route's own pure parser says (the probes' host rule, the HTTP check's URL rule with
 * HTTP_CHECK_PORTS); null when it passes or the type has none. Caught at the POST, a typo is one
 * 400 rather than a failed probe on every node (or a failed run of a monitor, every interval).
 */
export function targetProblem(type: MeasurementType, target: string, httpPorts: PortRanges): string | null {
  if (type === 'http') {
    const parsed = parseCheckUrl(target, httpPorts);
    return parsed.ok ? null : parsed.reason;
  }
  if (!MEASUREMENT_TYPES[type].stream) return null;
  const parsed = parseProbeHost(target);
  return parsed.ok ? null : `${parsed.reason}; give a host name or an IP address`;
}
