/**
 * What a measurement can run: each type is one single-node route, whose query parameters are the
 * measurement's `target` (the route's main parameter) and `options` (the others), validated by that
 * route's own schema, run on each probe node as a request to that route.
 */
export const MEASUREMENT_TYPES = {
  ping: { route: '/api/v1/ping', target: 'host', stream: true },
  traceroute: { route: '/api/v1/traceroute', target: 'host', stream: true },
  mtr: { route: '/api/v1/mtr', target: 'host', stream: true },
  dns: { route: '/api/v1/dns', target: 'host', stream: false },
  http: { route: '/api/v1/http', target: 'url', stream: false },
  ssl: { route: '/api/v1/ssl', target: 'host', stream: false },
} as const satisfies Record<string, { route: string; target: string; stream: boolean }>;

export type MeasurementType = keyof typeof MEASUREMENT_TYPES;
export const MEASUREMENT_TYPE_NAMES = Object.keys(MEASUREMENT_TYPES) as MeasurementType[];

/** Query parameters that are not options: the key travels as the caller's tier, never to another node. */
export const NOT_OPTIONS = new Set(['api_key']);

/** The system tool a type needs on a node (ping over TCP needs none); null: every node can. */
export function requiredTool(type: MeasurementType, options: Readonly<Record<string, string>>): string | null {
  if (type === 'ping') return options.protocol === 'tcp' ? null : 'ping';
  if (type === 'traceroute' || type === 'mtr') return type;
  return null;
}
