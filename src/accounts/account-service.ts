import type { RateLimitStore } from '../limits/store.ts';
import { KEY_QUOTA, type TierLimits, type WindowLimits } from '../limits/tiers.ts';
import { readUsage, type WindowUsage } from '../limits/usage.ts';
import type { AccountRecord, AccountRepository, Plan } from '../storage/repository.ts';
import { newId } from './key-service.ts';
import { createDecoyVerifier, hashPassword, needsRehash, verifyPassword } from './passwords.ts';

export interface AccountOverview {
  readonly email: string;
  readonly plan: Plan;
  readonly createdAt: number;
  readonly limits: WindowLimits;
  readonly usage: { readonly hourly: WindowUsage; readonly daily: WindowUsage };
  readonly keys: { readonly active: number; readonly quota: number };
}

export type SignupOutcome = { ok: true; account: AccountRecord } | { ok: false; reason: 'email-taken' };
export type LoginOutcome = { ok: true; account: AccountRecord } | { ok: false; reason: 'invalid' | 'disabled' };

export interface AccountService {
  /** `email` normalised and `password` checked by the caller. */
  signup(email: string, password: string): Promise<SignupOutcome>;
  login(email: string, password: string): Promise<LoginOutcome>;
  overview(account: AccountRecord): Promise<AccountOverview>;
}

export function createAccountService(options: {
  repository: AccountRepository;
  store: RateLimitStore;
  limits: TierLimits;
  now: () => number;
}): AccountService {
  const { repository, store, limits, now } = options;
  const decoy = createDecoyVerifier();
  return {
    async signup(email, password) {
      const account: AccountRecord = {
        id: newId(),
        email,
        passwordHash: await hashPassword(password),
        plan: 'free',
        createdAt: now(),
        disabledAt: null,
      };
      const outcome = await repository.createAccount(account);
      return outcome === 'created' ? { ok: true, account } : { ok: false, reason: 'email-taken' };
    },

    async login(email, password) {
      const account = await repository.findAccountByEmail(email);
      if (!account) {
        await decoy(password);
        return { ok: false, reason: 'invalid' };
      }
      if (!(await verifyPassword(password, account.passwordHash))) return { ok: false, reason: 'invalid' };
      // Only someone who knows the password learns that the account is disabled.
      if (account.disabledAt !== null) return { ok: false, reason: 'disabled' };
      if (needsRehash(account.passwordHash)) {
        await repository.updatePasswordHash(account.id, await hashPassword(password));
      }
      return { ok: true, account };
    },

    async overview(account) {
      const [usage, active] = await Promise.all([
        readUsage(store, limits, account.plan, `account:${account.id}`, now()),
        repository.countActiveKeys(account.id),
      ]);
      return {
        email: account.email,
        plan: account.plan,
        createdAt: account.createdAt,
        limits: limits[account.plan],
        usage,
        keys: { active, quota: KEY_QUOTA[account.plan] },
      };
    },
  };
}
