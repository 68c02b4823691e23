import type { KeyOwner } from '../storage/repository.ts';

/**
 * Oldest entry out first: a hit does not reorder, which keeps hits cheapest, and an evicted key is
 * simply looked up again. Short-lived only as a safety net: every change we know of invalidates at
 * once. `generation` guards the race between a lookup and a revocation: `set` takes the generation
 * read before the lookup and drops the entry when anything was invalidated in between.
 */
export interface KeyCache {
  get(keyHash: string): KeyOwner | undefined;
  generation(): number;
  set(keyHash: string, owner: KeyOwner, generation: number): void;
  invalidateKey(keyId: string): void;
  invalidateAccount(accountId: string): void;
  clear(): void;
}

interface Entry {
  owner: KeyOwner;
  expiresAt: number;
}

export function createKeyCache(options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}): KeyCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 300_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let generation = 0;

  const dropWhere = (matches: (owner: KeyOwner) => boolean) => {
    generation++;
    for (const [hash, entry] of entries) if (matches(entry.owner)) entries.delete(hash);
  };

  return {
    get(keyHash) {
      const entry = entries.get(keyHash);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(keyHash);
        return undefined;
      }
      return entry.owner;
    },
    generation: () => generation,
    set(keyHash, owner, seenGeneration) {
      if (seenGeneration !== generation) return;
      entries.delete(keyHash);
      entries.set(keyHash, { owner, expiresAt: now() + ttlMs });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
    },
    invalidateKey: (keyId) => dropWhere((owner) => owner.keyId === keyId),
    invalidateAccount: (accountId) => dropWhere((owner) => owner.accountId === accountId),
    clear: () => dropWhere(() => true),
  };
}
