/**
 * One breaker in front of a shared backend (Redis) that every twin with an in-process fallback
 * asks before it calls: the rate-limit store, the stream slots, the caches, the key-owner version.
 *
 * Without it a Redis that hangs (SIGSTOP, a partition: the socket stays up, nothing answers) costs
 * every request the command time-out before its fallback runs: about 500 ms each. After
 * `failuresToOpen` failures in a row (any twin's), the breaker opens: callers go to their
 * fallback at once, and the backend is probed in the background every `probeEveryMs`, never on a
 * request's time. The first probe that answers closes it, and calls go to the backend again.
 */
export interface CircuitBreaker {
  /** True while calls should skip the backend. */
  readonly open: boolean;
  /** When it last opened (the clock passed in), or -Infinity. */
  readonly openedAt: number;
  /** Runs `primary` unless open; on its failure (or when open), `fallback`. */
  call<R>(primary: () => Promise<R> | R, fallback: () => Promise<R> | R): Promise<R>;
  /** A call made outside `call` failed (a cache that catches its own errors reports them here). */
  failure(error: Error): void;
  success(): void;
  /** Stops probing. */
  close(): void;
}

export interface CircuitBreakerOptions {
  /** Asks the backend something small; resolves when it answers. */
  probe: () => Promise<unknown>;
  failuresToOpen?: number;
  probeEveryMs?: number;
  onOpen?: (error: Error) => void;
  onClose?: () => void;
  now?: () => number;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const failuresToOpen = options.failuresToOpen ?? 3;
  const probeEveryMs = options.probeEveryMs ?? 1000;
  const now = options.now ?? Date.now;
  let failures = 0;
  let openedAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
  let closed = false;

  const close = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    failures = 0;
    options.onClose?.();
  };
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      await options.probe();
      if (timer !== undefined) close();
    } catch {
      // Still not answering: stay open, try again at the next tick.
    } finally {
      probing = false;
    }
  };
  const failure = (error: Error) => {
    failures += 1;
    if (timer !== undefined || closed || failures < failuresToOpen) return;
    openedAt = now();
    timer = setInterval(probe, probeEveryMs);
    timer.unref();
    options.onOpen?.(error);
  };
  const success = () => {
    failures = 0;
  };

  return {
    get open() {
      return timer !== undefined;
    },
    get openedAt() {
      return openedAt;
    },
    async call(primary, fallback) {
      if (timer !== undefined) return fallback();
      try {
        const result = await primary();
        success();
        return result;
      } catch (error) {
        failure(error as Error);
        return fallback();
      }
    },
    failure,
    success,
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
