import type { SignedJob } from './job.ts';
import type { NodeInfo } from './node-info.ts';
import {
  type AppendOutcome,
  MEASUREMENT_DONE_JSON,
  type MeasurementRecord,
  type MeasurementState,
  type MeshStore,
  type ProbeEnd,
  type StoredEvent,
} from './store.ts';

interface Held {
  state: MeasurementState;
  events: StoredEvent[];
  ended: number;
  expires: number;
}

/**
 * The mesh of one: measurements in this process, jobs handed straight to this node's runner. Keeps
 * the same rules as the Redis store (store.ts), so the service cannot tell them apart.
 */
export function createMemoryMeshStore(options: { ttlMs: number; now: () => number }): MeshStore {
  const { ttlMs, now } = options;
  const held = new Map<string, Held>();
  const watchers = new Map<string, Set<() => void>>();
  let self: NodeInfo | undefined;
  let run: ((job: SignedJob) => void) | undefined;
  let lastMs = 0;
  let seq = 0;

  const nextId = () => {
    const ms = now();
    if (ms > lastMs) {
      lastMs = ms;
      seq = 0;
    } else seq++;
    return `${lastMs}-${seq}`;
  };
  const find = (id: string) => {
    const entry = held.get(id);
    if (entry !== undefined && entry.expires <= now()) {
      held.delete(id);
      return undefined;
    }
    return entry;
  };
  const notify = (id: string) => {
    for (const changed of watchers.get(id) ?? []) changed();
  };
  const push = (entry: Held, json: string) => {
    entry.events.push({ id: nextId(), json });
  };

  return {
    async announce(node) {
      self = node;
    },
    async keepAlive() {},
    async nodes() {
      return self ? [self] : [];
    },
    async create(record: MeasurementRecord, jobs) {
      // Expired measurements leave as new ones come: nothing else holds them. They are held in
      // creation order with one TTL, so the expired ones are in front: a scan of every one took 85%
      // of the CPU at 167 creations a second with 20,000 held (bench:monitors).
      for (const [id, entry] of held) {
        if (entry.expires > now()) break;
        held.delete(id);
      }
      held.set(record.id, {
        state: { record, probes: record.probes.map(() => ({ status: 'queued' })) },
        events: [],
        ended: 0,
        expires: now() + ttlMs,
      });
      for (const { job } of jobs) queueMicrotask(() => run?.(job));
    },
    async forget(id) {
      held.delete(id);
    },
    async claim(id, probe) {
      const state = find(id)?.state.probes[probe];
      if (state?.status !== 'queued') return false;
      state.status = 'in-progress';
      return true;
    },
    async append(id, probe, json, end?: ProbeEnd): Promise<AppendOutcome> {
      const entry = find(id);
      const state = entry?.state.probes[probe];
      if (entry === undefined || state === undefined) return 'gone';
      if (state.status === 'finished' || state.status === 'failed') return 'ended';
      push(entry, json);
      if (end !== undefined) {
        state.status = end.status;
        state.end = end;
        entry.ended++;
        if (entry.ended === entry.state.probes.length) push(entry, MEASUREMENT_DONE_JSON);
      }
      notify(id);
      return 'appended';
    },
    async sweep() {
      // One process: its runner cannot go silent while the process answers.
    },
    async state(id) {
      return structuredClone(find(id)?.state ?? null);
    },
    async events(id, after) {
      const entry = find(id);
      if (entry === undefined) return null;
      if (after === null) return entry.events.slice();
      const [ms = 0, n = 0] = after.split('-').map(Number);
      return entry.events.filter((stored) => {
        const [ems = 0, en = 0] = stored.id.split('-').map(Number);
        return ems > ms || (ems === ms && en > n);
      });
    },
    watch(id, changed) {
      let set = watchers.get(id);
      if (set === undefined) {
        set = new Set();
        watchers.set(id, set);
      }
      set.add(changed);
      return {
        ready: Promise.resolve(),
        stop: () => {
          set.delete(changed);
          if (set.size === 0) watchers.delete(id);
        },
      };
    },
    consume(_node, _runner, runner) {
      run = runner;
    },
    async close() {
      run = undefined;
    },
  };
}
