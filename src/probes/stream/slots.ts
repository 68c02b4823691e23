import type { MaybePromise } from '../../limits/maybe-async.ts';

/**
 * Counts the live streams, globally and per caller, since each one holds a system process. A slot
 * is taken before any work (name resolution included) and given back when the stream ends.
 * Two twins: this process's counts (`createStreamSlots`, below) and leases in Redis shared by every
 * instance (`redis-slots.ts`, behind `fallback-slots.ts`), chosen by scale/shared-state.ts.
 */
export interface StreamSlots {
  /**
   * Takes a slot for `client` that is held at most until `holdUntilMs` (the stream's time limit),
   * or says which cap refused it. A plain value in this process, a promise from Redis.
   */
  acquire(client: string, holdUntilMs: number): MaybePromise<SlotGrant | SlotRefusal>;
  /** Streams this process has open now (for logs and tests). */
  readonly open: number;
}

/** The in-process twin answers at once. */
export interface InProcessStreamSlots extends StreamSlots {
  acquire(client: string, holdUntilMs: number): SlotGrant | SlotRefusal;
}

export interface SlotGrant {
  ok: true;
  /** Idempotent. */
  release(): void;
}

export interface SlotRefusal {
  ok: false;
  scope: 'client' | 'server';
  limit: number;
  /** Epoch ms by which a slot of that scope is free at the latest: the earliest held slot's time limit. */
  freeByMs: number;
}

/** The in-process twin: exact for one process; with REDIS_URL, the fallback while Redis is unreachable. */
export function createStreamSlots(limits: { maxConcurrent: number; maxPerClient: number }): InProcessStreamSlots {
  // Each open slot's holdUntil, globally and per client; small sets, so a linear min is enough.
  const all = new Set<{ holdUntilMs: number }>();
  const byClient = new Map<string, Set<{ holdUntilMs: number }>>();
  const earliest = (slots: Iterable<{ holdUntilMs: number }>) =>
    Math.min(...[...slots].map((slot) => slot.holdUntilMs));

  return {
    get open() {
      return all.size;
    },
    acquire(client, holdUntilMs) {
      const mine = byClient.get(client) ?? new Set();
      if (mine.size >= limits.maxPerClient) {
        return { ok: false, scope: 'client', limit: limits.maxPerClient, freeByMs: earliest(mine) };
      }
      if (all.size >= limits.maxConcurrent) {
        return { ok: false, scope: 'server', limit: limits.maxConcurrent, freeByMs: earliest(all) };
      }
      const slot = { holdUntilMs };
      all.add(slot);
      mine.add(slot);
      byClient.set(client, mine);
      return {
        ok: true,
        release() {
          all.delete(slot);
          mine.delete(slot);
          if (mine.size === 0 && byClient.get(client) === mine) byClient.delete(client);
        },
      };
    },
  };
}
