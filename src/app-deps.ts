import type { DestinationStream } from 'pino';
import type { Resolver } from './dns/resolver.ts';
import type { IpDataStore } from './ipinfo/data/ip-data-store.ts';
import type { CallerResolver } from './limits/caller.ts';
import type { RateLimitStore } from './limits/store.ts';
import type { MonitorRepository } from './monitors/repository.ts';
import type { Spawner } from './probes/spawn/spawner.ts';
import type { AccountRepository } from './storage/repository.ts';
import type { BootstrapSnapshot } from './whois/rdap/bootstrap.ts';

/** What the composition root builds by default and tests may replace. */
export interface AppDeps {
  now?: () => number;
  rateLimitStore?: RateLimitStore;
  callers?: CallerResolver;
  /** Accounts, sessions and keys (default: SQLite from DATABASE_URL / DATA_DIR). */
  accountRepository?: AccountRepository;
  /** Where log lines go (default stdout); tests capture them here. */
  logStream?: DestinationStream;
  /** The one DNS resolver every capability uses (default: DNS_SERVERS with an in-process cache). */
  resolver?: Resolver;
  /** Starts ping, traceroute and mtr (default: the real tools); tests pass fakes that replay captured output. */
  spawner?: Spawner;
  /** The IP data behind /api/v1/json (default: from config and DATA_DIR, following data:update). */
  ipData?: IpDataStore;
  /** PEM certificates that replace Node's bundled roots for /ssl, RDAP over HTTPS and the HTTP check (tests trust their own CA). */
  trustedCertificates?: readonly string[];
  /** Port asked when a WHOIS referral names none (43); tests run their fake WHOIS servers on another. */
  whoisReferralPort?: number;
  /** Ports RDAP URLs may name (443 and 80); tests run their fake RDAP servers on another. */
  rdapPorts?: readonly number[];
  /** IANA's RDAP bootstrap data to start from (default: the shipped snapshot); tests name their fake servers. */
  rdapBootstrap?: BootstrapSnapshot;
  /** Monitors and their history (default: beside the accounts, in DATABASE_URL). */
  monitorRepository?: MonitorRepository;
  /** The soft open-files limit the in-flight caps are fitted under (default: /proc/self/limits; null: none known). */
  openFilesLimit?: number | null;
}
