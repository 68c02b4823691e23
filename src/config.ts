import { isIP } from 'node:net';
import path from 'node:path';
import { abuseConfigVariables } from './abuse/config.ts';
import { accountsConfigVariables } from './accounts/config.ts';
import { blacklistConfigVariables } from './blacklist/config.ts';
import type { ConfigVariable } from './config-values.ts';
import { integerIn, text } from './config-values.ts';
import { dnsConfigVariables } from './dns/config.ts';
import { parseTargetPolicy } from './dns/target-policy.ts';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.ts';
import { httpCheckConfigVariables } from './httpcheck/config.ts';
import { ipInfoConfigVariables } from './ipinfo/config.ts';
import { limitsConfigVariables } from './limits/config.ts';
import { parseRateLimits, type TierLimits } from './limits/tiers.ts';
import { mailConfigVariables } from './mail/config.ts';
import { meshConfigVariables } from './mesh/config.ts';
import { metricsConfigVariables } from './metrics/config.ts';
import { monitorConfigVariables } from './monitors/config.ts';
import { portConfigVariables } from './port/config.ts';
import { streamConfigVariables } from './probes/stream/config.ts';
import { tracerouteConfigVariables } from './probes/traceroute/config.ts';
import { resolverConfigVariables } from './resolver/config.ts';
import { rpkiConfigVariables } from './rpki/config.ts';
import { scaleConfigVariables } from './scale/config.ts';
import { storageConfigVariables } from './storage/config.ts';
import { tlsConfigVariables } from './tls/config.ts';
import { webConfigVariables } from './web/config.ts';
import { whoisConfigVariables } from './whois/config.ts';

export type { ConfigVariable };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** Each capability declares its own in `src/<capability>/config.ts`. */
const coreVariables = {
  port: {
    name: 'PORT',
    defaultText: '8080',
    description: 'TCP port the HTTP server listens on.',
    parse: integerIn(0, 65535, 8080),
  },
  host: {
    name: 'HOST',
    defaultText: '`::`',
    description: 'Listen address; `::` accepts IPv4 and IPv6 clients (dual-stack).',
    parse: (raw: string | undefined): string => {
      const value = text('::')(raw);
      // Node would only say "getaddrinfo ENOTFOUND [::1]" when it tries to listen.
      if (/^\[.*\]$/.test(value)) throw new Error(`write an IPv6 address without brackets (${value.slice(1, -1)})`);
      if (isIP(value) === 0 && value.includes(':')) {
        throw new Error(`must be an address or a host name without a port (set PORT for that), got "${value}"`);
      }
      return value;
    },
  },
  trustProxy: {
    name: 'TRUST_PROXY',
    defaultText: 'empty',
    description:
      'Comma-separated CIDRs or addresses of proxies whose forwarding headers are trusted; the word `loopback` means 127.0.0.0/8 and ::1, `private` means 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 and fc00::/7. Empty: the socket peer is the client.',
    parse: (raw: string | undefined): TrustProxy => parseTrustProxy(raw ?? ''),
  },
  dataDir: {
    name: 'DATA_DIR',
    defaultText: '`./data`',
    description:
      'Directory where the service keeps its state, created if missing. It must be on a real filesystem (not /proc, /sys or another kernel pseudo-filesystem) and, when it is to be created, its first existing parent must be writable by the service; otherwise the start stops with one line saying why.',
    parse: (raw: string | undefined): string => path.resolve(text('./data')(raw)),
  },
  logLevel: {
    name: 'LOG_LEVEL',
    defaultText: '`info`',
    description: `pino log level: ${LOG_LEVELS.join(', ')}.`,
    parse: (raw: string | undefined): LogLevel => {
      const value = text('info')(raw).toLowerCase();
      if (!(LOG_LEVELS as readonly string[]).includes(value)) {
        throw new Error(`must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
      }
      return value as LogLevel;
    },
  },
  rateLimits: {
    name: 'RATE_LIMITS',
    defaultText: '`public=100/500,free=1000/10000,pro=10000/100000`',
    description: 'Per-tier limits as `tier=hourly/daily`; tiers left out keep their default.',
    parse: (raw: string | undefined): TierLimits => parseRateLimits(raw ?? ''),
  },
  allowPrivateTargets: {
    name: 'ALLOW_PRIVATE_TARGETS',
    defaultText: '`false`',
    description:
      "Let TLS checks, WHOIS referrals, ping, traceroute, the HTTP check (its redirects included) and the port check (of the caller's own address) reach private, loopback, link-local, multicast, reserved and metadata addresses (for operators probing their own networks): `true` opens them all; a comma-separated list of CIDRs or addresses, IPv4 and IPv6 (`10.20.0.0/16,127.0.0.1/32,fd00::/8`), opens only the special-purpose addresses inside them, so the metadata address stays closed unless a range holds it. A CIDR with host bits set (`10.0.0.1/8`) is refused. A 6to4 (`2002::/16`) or Teredo (`2001::/32`) address counts as the IPv4 addresses it embeds (`2002:7f00:2::` as 127.0.0.2), which a list opens as it opens them.",
    parse: parseTargetPolicy,
  },
  requestTimeoutMs: {
    name: 'REQUEST_TIMEOUT_MS',
    defaultText: '30000',
    description:
      'How long a request (its headers and its whole body, however slowly it trickles in) may take to arrive; a request still incomplete then is answered 408 and its connection closed. Responses are not limited by it: a ping or traceroute stream runs as long as its tool.',
    parse: integerIn(100, 600_000, 30_000),
  },
  shutdownGraceMs: {
    name: 'SHUTDOWN_GRACE_MS',
    defaultText: '10000',
    description: 'On SIGTERM/SIGINT, how long in-flight requests may take to finish before the process exits.',
    parse: integerIn(0, 600_000, 10_000),
  },
} satisfies Record<string, ConfigVariable<unknown>>;

export const configVariables = {
  ...coreVariables,
  ...dnsConfigVariables,
  ...blacklistConfigVariables,
  ...scaleConfigVariables,
  ...metricsConfigVariables,
  ...streamConfigVariables,
  ...tracerouteConfigVariables,
  ...ipInfoConfigVariables,
  ...rpkiConfigVariables,
  ...whoisConfigVariables,
  ...abuseConfigVariables,
  ...tlsConfigVariables,
  ...storageConfigVariables,
  ...accountsConfigVariables,
  ...webConfigVariables,
  ...httpCheckConfigVariables,
  ...mailConfigVariables,
  ...limitsConfigVariables,
  ...portConfigVariables,
  ...resolverConfigVariables,
  ...meshConfigVariables,
  ...monitorConfigVariables,
} satisfies Record<string, ConfigVariable<unknown>>;

type Variables = typeof configVariables;
export type Config = { readonly [K in keyof Variables]: ReturnType<Variables[K]['parse']> };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A bad value is printed, naming the variable, instead of a stack trace. */
export function loadConfigOrExit(exitCode: number): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(exitCode);
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(configVariables)) {
    try {
      config[key] = variable.parse(env[variable.name]);
    } catch (error) {
      problems.push(`${variable.name}: ${(error as Error).message}`);
    }
  }
  if (problems.length === 0 && (config.workers as number) > 1 && config.redisUrl === null) {
    problems.push(
      'WORKERS: more than one worker needs REDIS_URL, or each would keep its own rate-limit counters (N times the limit)',
    );
  }
  if (problems.length === 0 && config.metricsPort !== 0 && config.metricsPort === config.port) {
    problems.push(
      'METRICS_PORT: must differ from PORT (the metrics are never served on the public port), or 0 for none',
    );
  }
  if (
    problems.length === 0 &&
    config.resolverTestZone !== null &&
    (config.resolverTestAddresses as string[]).length === 0
  ) {
    problems.push(
      "RESOLVER_TEST_ADDRESSES: RESOLVER_TEST_ZONE needs the addresses its test names point to (this service's public IPv4 and/or IPv6)",
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(config) as Config;
}
