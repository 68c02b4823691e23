import type { FastifyReply, FastifyRequest } from 'fastify';
import { openEventStream } from '../http/sse.ts';
import { MEASUREMENT_DONE_JSON, type MeshStore, type StoredEvent } from './store.ts';

export interface EventsStreamOptions {
  /** How often the stream asks whether a probe's node went silent (and polls, should a notice be missed). */
  sweepMs: number;
  shutdownSignal: AbortSignal;
}

/**
 * Writes a measurement's stored events to the client as they arrive, from `after` on, until
 * `measurement_done` (or the client leaves). Reading never runs anything: a reconnect resumes.
 * Redis failing mid-stream is waited out; a measurement gone (expired, or lost with a Redis that
 * restarted empty) ends the stream with an error event.
 */
export async function streamMeasurementEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  store: MeshStore,
  id: string,
  first: StoredEvent[],
  after: string | null,
  options: EventsStreamOptions,
): Promise<void> {
  const stream = openEventStream(request, reply);
  let changed = false;
  let wake = () => {};
  const watch = store.watch(id, () => {
    changed = true;
    wake();
  });
  // Whatever was appended between the first read and the subscription: read once more when it holds.
  void watch.ready.then(() => {
    changed = true;
    wake();
  });
  const stop = () => wake();
  stream.clientGone.addEventListener('abort', stop);
  options.shutdownSignal.addEventListener('abort', stop);
  let pending: StoredEvent[] | null = first;
  let last = after;
  let sweptAt = performance.now();
  try {
    for (;;) {
      for (const { id: eventId, json } of pending) {
        stream.sendJson(json, eventId);
        last = eventId;
        if (json === MEASUREMENT_DONE_JSON) return;
      }
      if (stream.clientGone.aborted) return;
      if (options.shutdownSignal.aborted) {
        stream.send({ type: 'error', message: 'The server is shutting down; reconnect to go on reading.' });
        return;
      }
      if (!changed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.sweepMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = () => {};
      }
      changed = false;
      try {
        // A node that went silent sends nothing more: every sweep's time, ask the store to end its probes.
        if (performance.now() - sweptAt >= options.sweepMs) {
          sweptAt = performance.now();
          await store.sweep(id);
        }
        pending = await store.events(id, last);
      } catch {
        pending = [];
        continue;
      }
      if (pending === null) {
        stream.send({ type: 'error', message: 'The measurement is gone: expired, or lost by the store.' });
        return;
      }
    }
  } finally {
    watch.stop();
    stream.clientGone.removeEventListener('abort', stop);
    options.shutdownSignal.removeEventListener('abort', stop);
    stream.close();
  }
}
