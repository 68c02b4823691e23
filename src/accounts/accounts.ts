import type { FastifyInstance } from 'fastify';
import type { TrustProxy } from '../http/trust-proxy.ts';
import type { CallerResolver } from '../limits/caller.ts';
import type { RateLimitStore } from '../limits/store.ts';
import type { TierLimits } from '../limits/tiers.ts';
import type { AccountRepository } from '../storage/repository.ts';
import { type AccountLimiter, createAccountLimiter } from './account-limits.ts';
import { type AccountService, createAccountService } from './account-service.ts';
import { createKeyCache, type KeyCache } from './key-cache.ts';
import { createApiKeyCallerResolver } from './key-callers.ts';
import { createKeyService, type KeyService } from './key-service.ts';
import { createKeyUsageRecorder } from './key-usage.ts';
import { buildKeyring, type Keyring } from './keyring.ts';
import { loadMasterKey, type VersionedMasterKey } from './master-key.ts';
import { storedApiKeys, watchMasterKey } from './master-key-check.ts';
import { announcingOwnerChanges, type OwnerChanges } from './owner-changes.ts';
import { createSessionService, type SessionService } from './sessions.ts';

export interface Accounts {
  readonly callers: CallerResolver;
  readonly repository: AccountRepository;
  readonly accountService: AccountService;
  readonly sessions: SessionService;
  readonly keys: KeyService;
  readonly limiter: AccountLimiter;
  /** The master keys: secrets the service must read back (API keys, webhook secrets) are encrypted under them. */
  readonly keyring: Keyring;
  readonly trustProxy: TrustProxy;
  readonly now: () => number;
}

export interface AccountsConfig {
  readonly dataDir: string;
  readonly masterKey: VersionedMasterKey[] | null;
  readonly sessionIdleMinutes: number;
  readonly rateLimits: TierLimits;
  readonly trustProxy: TrustProxy;
}

const SWEEP_EVERY_MS = 3_600_000;

/** The repository, opened by the composition root, is closed with the app. */
export async function createAccounts(
  app: FastifyInstance,
  config: AccountsConfig,
  options: {
    now: () => number;
    store: RateLimitStore;
    repository: AccountRepository;
    keyUsageFlushMs?: number;
    /** Present when several instances share the accounts (REDIS_URL): see owner-changes.ts. */
    ownerChanges?: OwnerChanges | null;
    /** Told of every API-key cache lookup, hit or miss (the metrics). */
    onKeyCache?: (hit: boolean) => void;
  },
): Promise<Accounts> {
  const { now, store } = options;
  const stored = options.repository;
  const ownerChanges = options.ownerChanges ?? undefined;
  const repository = ownerChanges ? announcingOwnerChanges(stored, ownerChanges) : stored;
  const keyring = buildKeyring(loadMasterKey({ configured: config.masterKey, dataDir: config.dataDir, log: app.log }));
  const usage = createKeyUsageRecorder({
    repository,
    now,
    flushEveryMs: options.keyUsageFlushMs,
    onError: (error) => app.log.error({ err: error }, 'could not record API key last-used times; will retry'),
  });
  const keys = createKeyService({
    repository,
    keyring,
    cache: countedKeyCache(createKeyCache({ now }), options.onKeyCache),
    usage,
    now,
    ...(ownerChanges ? { ownerChanges } : {}),
  });
  const sessions = createSessionService({
    repository,
    csrfKey: keyring.current.csrfKey,
    idleMs: config.sessionIdleMinutes * 60_000,
    now,
  });

  const sweep = () =>
    sessions.sweep().catch((error: unknown) => app.log.warn({ err: error }, 'could not delete expired sessions'));
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
  void sweep();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await usage.close();
    await repository.close();
  });
  const masterKey = watchMasterKey(storedApiKeys(repository), keyring, app.log);
  app.addHook('onClose', async () => masterKey.stop());
  app.readiness.add('accounts', () => {
    const why = repository.unavailable() ?? masterKey.problem();
    return why === undefined ? { state: 'ready' } : { state: 'degraded', detail: why };
  });

  return {
    callers: createApiKeyCallerResolver(keys),
    repository,
    accountService: createAccountService({ repository, store, limits: config.rateLimits, now }),
    sessions,
    keys,
    limiter: createAccountLimiter(store, now),
    keyring,
    trustProxy: config.trustProxy,
    now,
  };
}

function countedKeyCache(cache: KeyCache, onLookup: ((hit: boolean) => void) | undefined): KeyCache {
  if (onLookup === undefined) return cache;
  return {
    ...cache,
    get(keyHash) {
      const owner = cache.get(keyHash);
      onLookup(owner !== undefined);
      return owner;
    },
  };
}
