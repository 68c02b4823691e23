import { type ConfigVariable, integerIn } from '../config-values.ts';
import { inFlightConfigVariables } from '../limits/in-flight.ts';
import { HTTP_CHECK_TOOL } from './tool.ts';

/** Ports as inclusive ranges; a single port is a range of one. */
export type PortRanges = readonly (readonly [first: number, last: number])[];

export const DEFAULT_HTTP_CHECK_PORTS = '80,443,1024-65535';

/**
 * Reads HTTP_CHECK_PORTS: comma-separated ports and `first-last` ranges, 1 to 65535. The default
 * keeps the check off the well-known ports of other services (SMTP 25, SSH 22, ...), where a
 * request from this service would be someone else's protocol abuse.
 */
export function parsePortRanges(raw: string | undefined): PortRanges {
  const text = raw === undefined || raw.trim() === '' ? DEFAULT_HTTP_CHECK_PORTS : raw;
  const ranges: [number, number][] = [];
  for (const item of text.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const match = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(entry);
    const first = Number(match?.[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (!match || first < 1 || last > 65535 || first > last) {
      throw new Error(`must be ports or ranges (first-last) from 1 to 65535, comma-separated; got "${entry}"`);
    }
    ranges.push([first, last]);
  }
  if (ranges.length === 0) throw new Error(`names no port, got "${raw}"`);
  return Object.freeze(ranges.map((range) => Object.freeze(range)));
}

export function portAllowed(port: number, ranges: PortRanges): boolean {
  return ranges.some(([first, last]) => port >= first && port <= last);
}

const httpCheckCaps = inFlightConfigVariables(HTTP_CHECK_TOOL, { all: 200, perClient: 5 });

export const httpCheckConfigVariables = {
  httpCheckPorts: {
    name: 'HTTP_CHECK_PORTS',
    defaultText: `\`${DEFAULT_HTTP_CHECK_PORTS}\``,
    description:
      'Ports `/api/v1/http` may connect to, for the URL asked and every redirect: comma-separated ports and `first-last` ranges. A URL or redirect to another port is refused (400 for the URL asked, 502 at the redirect).',
    parse: parsePortRanges,
  },
  httpCheckTimeoutMs: {
    name: 'HTTP_CHECK_TIMEOUT_MS',
    defaultText: '10000',
    description:
      'Bounds a whole `/api/v1/http` check, every redirect and the body included; past it the check is a 502 naming the phase that did not finish.',
    parse: integerIn(100, 60_000, 10_000),
  },
  httpCheckMaxBodyBytes: {
    name: 'HTTP_CHECK_MAX_BODY_BYTES',
    defaultText: '1048576',
    description:
      'How much of the final response body `/api/v1/http` reads (and discards) at most; a longer body is cut there (`body_truncated: true`), its connection closed.',
    parse: integerIn(0, 104_857_600, 1_048_576),
  },
  httpCheckMaxInFlight: httpCheckCaps.all,
  httpCheckMaxInFlightPerClient: httpCheckCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;

/** The HTTP check's slice of the configuration. */
export interface HttpCheckConfig {
  readonly httpCheckPorts: PortRanges;
  readonly httpCheckTimeoutMs: number;
  readonly httpCheckMaxBodyBytes: number;
}
