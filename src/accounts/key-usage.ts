import type { AccountRepository } from '../storage/repository.ts';

/**
 * Last-used times without a write per request: each keyed request only notes the time in memory,
 * and the notes are written in one transaction every `flushEveryMs` and at shutdown. Listings add
 * the unwritten notes, so the dashboard is current in this process; a crash loses at most one
 * interval of last-used times, never anything else.
 */
export interface KeyUsageRecorder {
  touch(keyId: string): void;
  /** A use noted here but not yet written, if any. */
  pending(keyId: string): number | undefined;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createKeyUsageRecorder(options: {
  repository: AccountRepository;
  now: () => number;
  flushEveryMs?: number;
  onError: (error: unknown) => void;
}): KeyUsageRecorder {
  const { repository, now, onError } = options;
  let notes = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    flushing = flushing.then(async () => {
      if (notes.size === 0) return;
      const batch = notes;
      notes = new Map();
      try {
        await repository.recordKeyUse([...batch].map(([keyId, usedAt]) => ({ keyId, usedAt })));
      } catch (error) {
        // Keep the notes for the next attempt, unless a newer use was noted meanwhile.
        for (const [keyId, usedAt] of batch) if (!notes.has(keyId)) notes.set(keyId, usedAt);
        onError(error);
      }
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushEveryMs ?? 60_000);
  timer.unref();

  return {
    touch(keyId) {
      notes.set(keyId, now());
    },
    pending: (keyId) => notes.get(keyId),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
