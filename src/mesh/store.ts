import type { SignedJob } from './job.ts';
import type { NodeLocation } from './location.ts';
import type { MeasurementType } from './measurement-types.ts';
import type { NodeInfo } from './node-info.ts';

export interface PlannedProbe {
  node: string;
  location: NodeLocation;
  asn: number | null;
}

export interface MeasurementRecord {
  id: string;
  type: MeasurementType;
  target: string;
  options: Record<string, string>;
  created_at: string;
  probes: PlannedProbe[];
}

export type ProbeStatus = 'queued' | 'in-progress' | 'finished' | 'failed';

/** How a probe ended: the route's answer (or the stream's `done`), or why it failed. */
export type ProbeEnd =
  | { status: 'finished'; result: unknown }
  | { status: 'failed'; error: string; http_status?: number };

export interface MeasurementState {
  record: MeasurementRecord;
  probes: { status: ProbeStatus; end?: ProbeEnd }[];
}

export interface StoredEvent {
  /** Opaque, increasing within a measurement: the SSE `id:` and what `Last-Event-ID` resumes after. */
  id: string;
  /** The event object as JSON, as the probe's route wrote it (with `node`), passed on as it is. */
  json: string;
}

export type AppendOutcome = 'appended' | 'ended' | 'gone';

/** Event ids of both stores: `<milliseconds>-<sequence>`, Redis Streams' own form. */
export const EVENT_ID = /^[0-9]{1,15}-[0-9]{1,15}$/;

export const MEASUREMENT_DONE_JSON = '{"type":"measurement_done"}';

/**
 * Where measurements live and how jobs reach nodes: in this process (a mesh of one), or in Redis
 * (redis-store.ts) for a mesh of instances. Both keep the rules that make a measurement safe to
 * watch: a probe is claimed by one runner at most, and only while queued; after its last event
 * (its end) nothing more is appended for it; `measurement_done` follows the last probe's end once.
 */
export interface MeshStore {
  /** This node is alive (a heartbeat), and this process is one of its runners. */
  announce(node: NodeInfo, runner: string): Promise<void>;
  /** This process is alive, said every half heartbeat: a runner silent for one and a half is taken for dead. */
  keepAlive(runner: string): Promise<void>;
  /** Nodes heard from within NODE_TIMEOUT_SECONDS. */
  nodes(): Promise<NodeInfo[]>;
  create(record: MeasurementRecord, jobs: readonly { node: string; job: SignedJob }[]): Promise<void>;
  /** True when this runner may run the probe: it was queued, and now it is this runner's. */
  claim(id: string, probe: number, runner: string): Promise<boolean>;
  /** `json`: the event object as JSON. */
  append(id: string, probe: number, json: string, end?: ProbeEnd): Promise<AppendOutcome>;
  /** Ends the probes whose node or runner went silent, or that no node took in time. */
  sweep(id: string): Promise<void>;
  state(id: string): Promise<MeasurementState | null>;
  /** Drops a measurement before its time (a monitor's, once its run is recorded): as if it had expired. */
  forget(id: string): Promise<void>;
  /** Events after `after` (all with null), in order; null when the measurement is unknown or expired. */
  events(id: string, after: string | null): Promise<StoredEvent[] | null>;
  /**
   * `changed` is called (without data) whenever the measurement may have new events, from when
   * `ready` resolves (a subscription takes a round trip: read again after it, or miss what came between).
   */
  watch(id: string, changed: () => void): { ready: Promise<void>; stop(): void };
  /** Hands this node's jobs to `run` until close(): each job to one runner of the node, once. */
  consume(node: string, runner: string, run: (job: SignedJob) => void): void;
  close(): Promise<void>;
}

export interface MeshStoreOptions {
  /** MESH_SECRET (or the supervisor's key for its workers); null: a mesh of this process alone. */
  secret: string | null;
  heartbeatMs: number;
  nodeTimeoutMs: number;
  ttlMs: number;
}
