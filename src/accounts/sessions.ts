import { createHash, createHmac, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccountRecord, AccountRepository } from '../storage/repository.ts';

/** A session lives at most this long, however active (then the user logs in again). */
export const SESSION_MAX_AGE_MS = 30 * 86_400_000;
/** A used session's idle deadline is pushed back at most once a minute: not a write per request. */
const TOUCH_EVERY_MS = 60_000;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface ActiveSession {
  /** The cookie value (kept only in memory for this request). */
  readonly id: string;
  readonly account: AccountRecord;
  readonly csrfToken: string;
}

export interface SessionService {
  /** A brand-new session (never one the client named: that is what prevents fixation). */
  start(accountId: string): Promise<{ id: string; csrfToken: string; maxAgeSeconds: number }>;
  /** The live session a cookie names, or undefined (unknown, expired, account disabled). */
  resume(id: string | undefined): Promise<ActiveSession | undefined>;
  end(id: string): Promise<void>;
  endAllOf(accountId: string): Promise<void>;
  /** Deletes expired rows (sessions also expire on read; this only reclaims space). */
  sweep(): Promise<number>;
  csrfTokenMatches(session: ActiveSession, presented: string | undefined): boolean;
}

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

/**
 * Sessions are 256-bit random ids kept by the browser in a cookie and, as a SHA-256, by us. The
 * CSRF token is an HMAC of the session id under a key derived from the master key: tied to the
 * session, unguessable without it, and nothing to store.
 */
export function createSessionService(options: {
  repository: AccountRepository;
  csrfKey: KeyObject;
  idleMs: number;
  now: () => number;
}): SessionService {
  const { repository, csrfKey, idleMs, now } = options;
  const csrfTokenFor = (id: string) => createHmac('sha256', csrfKey).update(id).digest('base64url');
  const deadline = (createdAt: number, seenAt: number) => Math.min(seenAt + idleMs, createdAt + SESSION_MAX_AGE_MS);

  return {
    async start(accountId) {
      const id = randomBytes(32).toString('base64url');
      const time = now();
      await repository.createSession({
        idHash: hashId(id),
        accountId,
        createdAt: time,
        lastSeenAt: time,
        expiresAt: deadline(time, time),
      });
      return { id, csrfToken: csrfTokenFor(id), maxAgeSeconds: Math.floor(SESSION_MAX_AGE_MS / 1000) };
    },

    async resume(id) {
      if (id === undefined || !SESSION_ID.test(id)) return undefined;
      const idHash = hashId(id);
      const session = await repository.findSession(idHash);
      if (!session) return undefined;
      const time = now();
      if (session.expiresAt <= time) {
        await repository.deleteSession(idHash);
        return undefined;
      }
      const account = await repository.findAccountById(session.accountId);
      if (!account || account.disabledAt !== null) return undefined;
      if (time - session.lastSeenAt >= TOUCH_EVERY_MS) {
        await repository.touchSession(idHash, time, deadline(session.createdAt, time));
      }
      return { id, account, csrfToken: csrfTokenFor(id) };
    },

    async end(id) {
      if (SESSION_ID.test(id)) await repository.deleteSession(hashId(id));
    },
    endAllOf: (accountId) => repository.deleteSessionsOfAccount(accountId),
    sweep: () => repository.deleteExpiredSessions(now()),

    csrfTokenMatches(session, presented) {
      if (presented === undefined) return false;
      const expected = Buffer.from(session.csrfToken);
      const given = Buffer.from(presented);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
