/**
 * Cancelling an MCP tool call from wherever the client's `notifications/cancelled` arrives. A
 * Streamable HTTP client sends it in a request of its own, which may reach another worker or
 * instance than the one running the call (the server keeps no session to route it by), so
 * the key (the client's session id and the call's request id) is announced to all of them.
 */
export interface Cancellations {
  /** Aborted when `cancel(key)` is called in any process; `release` once the call has ended. */
  watch(key: string): { readonly signal: AbortSignal; release(): void };
  cancel(key: string): Promise<void>;
  close(): void;
}

/** One process: the calls it runs are all there are. */
export function createMemoryCancellations(): Cancellations & { abortLocal(key: string): boolean } {
  const running = new Map<string, AbortController>();
  const abortLocal = (key: string) => {
    const controller = running.get(key);
    controller?.abort(new Error('cancelled by the client'));
    return controller !== undefined;
  };
  return {
    watch(key) {
      const controller = new AbortController();
      running.set(key, controller);
      return {
        signal: controller.signal,
        release: () => {
          if (running.get(key) === controller) running.delete(key);
        },
      };
    },
    async cancel(key) {
      abortLocal(key);
    },
    abortLocal,
    close: () => running.clear(),
  };
}
