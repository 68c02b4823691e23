/**
 * Hands out turns to spawn a process: one per turn of the event loop, each after the I/O of that
 * turn. Spawning is synchronous in Node (the fork of this process takes 2-10 ms, more as its memory
 * grows), so a burst of new streams spawning back to back would hold every running stream's output
 * behind all of the forks; taking turns bounds that delay to about one fork.
 */
export interface SpawnTurns {
  /** Resolves when the caller may spawn; spawn right away, in the same turn. */
  next(): Promise<void>;
}

export function createSpawnTurns(): SpawnTurns {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const giveTurn = () => {
    scheduled = false;
    waiting.shift()?.();
    // A new turn for the next waiter, scheduled from here, comes after the event loop's next I/O
    // poll: setImmediate callbacks queued while the check phase runs wait for the next iteration.
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(giveTurn);
  };
  return {
    next() {
      return new Promise((resolve) => {
        waiting.push(resolve);
        schedule();
      });
    },
  };
}
