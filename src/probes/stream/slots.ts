/**
 * Counts the live streams, globally and per caller, since each one holds a system process. A slot
 * is taken before any work (name resolution included) and given back when the stream ends.
 * Two twins: this process's counts (`createStreamSlots`, below) and leases in Redis shared by every
 * instance (`redis-slots.ts`, behind `fallback-slots.ts`), chosen by scale/shared-state.ts.
 */
export interface StreamSlots {
  /**
   * Takes a slot for `client` that is held at most until `holdUntilMs` (the stream's time limit),
   * or says which cap refused it. Callers await it: a promise from Redis, a plain value from the
   * in-process twin, which the in-flight caps (limits/in-flight.ts) call synchronously.
   */
  acquire(client: string, holdUntilMs: number): SlotGrant | SlotRefusal | Promise<SlotGrant | SlotRefusal>;
  /** Streams this process has open now (for logs and tests). */
  readonly open: number;
}

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
  /**
   * `client`: the caller has STREAM_MAX_PER_CLIENT open; `server`: no slot is free; `share`: the
   * caller's fair share of what is free is taken (see `refusedScope`).
   */
  scope: 'client' | 'server' | 'share';
  /** The cap that applied; for `share`, the caller's share at this fill. */
  limit: number;
  /** Epoch ms by which a slot of that scope is free at the latest: the earliest held slot's time limit. */
  freeByMs: number;
}

/**
 * The fair-share rule (issue 28: 34 addresses held all 100 slots). A caller holding `held` streams
 * may open one more only while
 *
 *     free slots × maxPerClient > held × maxConcurrent
 *
 * that is, its cap shrinks in step with the free slots: all of maxPerClient on an idle server, one
 * once fewer than maxConcurrent / maxPerClient slots are free (33 of 100 by default), and a caller
 * holding none may always take the last one. Slots taken as second or third streams stop while that
 * many are still free, so they are kept for callers with none: filling the server takes about
 * maxConcurrent distinct callers instead of a third of them. Redis's script (redis-slots.ts)
 * applies the same rule, in the same order: per-client cap, no slot free, share.
 */
export function refusedScope(
  limits: { maxConcurrent: number; maxPerClient: number },
  held: number,
  open: number,
): SlotRefusal['scope'] | null {
  if (held >= limits.maxPerClient) return 'client';
  const free = limits.maxConcurrent - open;
  if (free <= 0) return 'server';
  if (free * limits.maxPerClient <= held * limits.maxConcurrent) return 'share';
  return null;
}

/** The streams a caller may hold while `open` are open: what a `share` refusal names as its limit. */
export function fairShare(limits: { maxConcurrent: number; maxPerClient: number }, open: number): number {
  const free = Math.max(0, limits.maxConcurrent - open);
  return Math.min(limits.maxPerClient, Math.ceil((free * limits.maxPerClient) / limits.maxConcurrent));
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
      const refused = refusedScope(limits, mine.size, all.size);
      if (refused === 'client') {
        return { ok: false, scope: 'client', limit: limits.maxPerClient, freeByMs: earliest(mine) };
      }
      if (refused === 'server') {
        return { ok: false, scope: 'server', limit: limits.maxConcurrent, freeByMs: earliest(all) };
      }
      if (refused === 'share') {
        // One of its own streams ending frees a slot and lowers what it holds: its share is back.
        return { ok: false, scope: 'share', limit: fairShare(limits, all.size), freeByMs: earliest(mine) };
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
