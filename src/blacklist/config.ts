import { type ConfigVariable, integerIn } from '../config-values.ts';
import { DEFAULT_DNSBLS, type Dnsbl, parseDnsblZones } from './lists.ts';

export const blacklistConfigVariables = {
  dnsblZones: {
    name: 'DNSBL_ZONES',
    defaultText: 'the eight lists /docs names under blacklist',
    description:
      'The lists `/api/v1/blacklist` checks, as `name=zone,...` (replaces the default set), e.g. a Spamhaus DQS zone `Spamhaus ZEN=<key>.zen.dq.spamhaus.net` (shown as `[key].zen.dq.spamhaus.net`).',
    parse: (raw: string | undefined): readonly Dnsbl[] => (raw === undefined ? DEFAULT_DNSBLS : parseDnsblZones(raw)),
  },
  dnsblTimeoutMs: {
    name: 'DNSBL_TIMEOUT_MS',
    defaultText: '2000',
    description: 'How long each list may take to answer; a list that takes longer is reported as `error`.',
    parse: integerIn(50, 30_000, 2000),
  },
  dnsblCacheSeconds: {
    name: 'DNSBL_CACHE_SECONDS',
    defaultText: '300',
    description: 'How long a blacklist report is reused for the same IP (30 s at most when a list failed; 0: never).',
    parse: integerIn(0, 86_400, 300),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
