import type { LocationSelector } from '../mesh/select-probes.ts';
import type { EncryptedSecret, Plan } from '../storage/repository.ts';
import type { MonitorState, MonitorType, RunState } from './monitor-types.ts';

// Times are UNIX milliseconds. Both implementations (SQLite, PostgreSQL) pass
// test/monitors/repository-contract.ts.

export interface MonitorSettings {
  readonly name: string;
  readonly type: MonitorType;
  readonly target: string;
  readonly options: Readonly<Record<string, string>>;
  readonly intervalSeconds: number;
  readonly locations: readonly LocationSelector[];
  readonly conditions: Readonly<Record<string, unknown>>;
  readonly webhooks: readonly string[];
  readonly emails: readonly string[];
  readonly pausedAt: number | null;
}

/** What a monitor's webhook secret is encrypted with beside the master key: it belongs to that monitor only. */
export const webhookSecretAad = (monitorId: string) => `monitor:${monitorId}`;

export interface MonitorRecord extends MonitorSettings {
  readonly id: string;
  readonly accountId: string;
  /** The webhook signing secret, encrypted under the master key like an API key. */
  readonly secret: EncryptedSecret;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the in-process scheduler runs it next (the Redis one keeps its own). */
  readonly nextRunAt: number | null;
  /** Null until a run has said up or down. */
  readonly state: MonitorState | null;
  readonly stateSince: number | null;
  /** The due time of the run that set the state: a slower, older run does not overwrite a newer one. */
  readonly stateDueAt: number | null;
  /** What `answer_changed` and `new_problem` compare with: the first answer seen since the check last changed. */
  readonly baseline: unknown;
}

export interface RunRecord {
  readonly id: string;
  readonly monitorId: string;
  readonly dueAt: number;
  readonly startedAt: number;
  readonly node: string;
  readonly durationMs: number;
  readonly responseMs: number | null;
  readonly state: RunState;
  readonly cause: string | null;
  readonly summary: Readonly<Record<string, unknown>>;
}

export interface IncidentRecord {
  readonly id: string;
  readonly monitorId: string;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly cause: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'removed';

export interface DeliveryAttempt {
  readonly at: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly monitorId: string;
  /** A webhook URL, or `mailto:` and an address. */
  readonly url: string;
  readonly event: string;
  /** The JSON body sent (and the facts an e-mail says). */
  readonly body: string;
  readonly createdAt: number;
  readonly state: DeliveryState;
  readonly attempts: readonly DeliveryAttempt[];
  readonly nextAttemptAt: number | null;
}

/** One tick of a monitor, recorded at once: its runs (one per node), and the state they say. */
export interface TickRecord {
  readonly monitorId: string;
  readonly dueAt: number;
  /** When the tick ended: a change of state, and its incident, start or end then. */
  readonly at: number;
  readonly runs: readonly RunRecord[];
  /** Null when every run was an error. */
  readonly state: MonitorState | null;
  /** Why it is down (the first down run's cause, with its node). */
  readonly cause: string | null;
  readonly baseline?: unknown;
  /** The in-process scheduler's next due time. */
  readonly nextRunAt?: number;
}

/** A change of state as notifications tell it. */
export interface StateChange {
  readonly monitor: MonitorRecord;
  readonly state: MonitorState;
  readonly previous: MonitorState | null;
  /** Opened by a change to down, ended by a change to up (none when the first state is up). */
  readonly incident: IncidentRecord | null;
}

export type TickOutcome =
  | { recorded: true; change: StateChange | null; deliveries: readonly DeliveryRecord[] }
  /** This due time was recorded already (a run taken over from a slow instance), or the monitor is gone. */
  | { recorded: false };

export interface MonitorRepository {
  /** Inserts unless the account already has `quota` monitors, atomically. */
  createMonitor(monitor: MonitorRecord, quota: number): Promise<'created' | 'quota-reached'>;
  findMonitor(accountId: string, id: string): Promise<MonitorRecord | undefined>;
  /** Any account's, with its account's plan: for the scheduler. */
  monitorById(id: string): Promise<(MonitorRecord & { plan: Plan; accountDisabled: boolean }) | undefined>;
  listMonitors(accountId: string): Promise<MonitorRecord[]>;
  /** Active (not paused) monitors of enabled accounts, for the in-process scheduler. */
  listScheduled(): Promise<{ id: string; intervalSeconds: number; nextRunAt: number | null }[]>;
  /** `resetState`: the check changed, so its state and baseline start again. */
  updateMonitor(
    accountId: string,
    id: string,
    settings: MonitorSettings,
    at: number,
    resetState: boolean,
  ): Promise<MonitorRecord | undefined>;
  deleteMonitor(accountId: string, id: string): Promise<boolean>;
  /** Monitors whose webhook secret is under another master key version than `version` (for rotate-keys). */
  listSecretsNotAtVersion(version: number): Promise<{ id: string; secret: EncryptedSecret }[]>;
  /** One monitor's webhook secret of each master key version in use, to test MASTER_KEY against. */
  oneSecretPerVersion(): Promise<{ id: string; secret: EncryptedSecret }[]>;
  /** Only if still under `fromVersion`, so two rotations running at once cannot overwrite each other. */
  replaceSecret(id: string, fromVersion: number, secret: EncryptedSecret): Promise<boolean>;

  /**
   * In one transaction, with the deliveries `notify` makes of a change of state (so a change is
   * never recorded without its notifications, nor twice); a second tick for one due time records nothing.
   */
  recordTick(tick: TickRecord, notify: (change: StateChange) => DeliveryRecord[]): Promise<TickOutcome>;
  /** Newest first, before the cursor (started_at, id). */
  listRuns(monitorId: string, limit: number, before?: { startedAt: number; id: string }): Promise<RunRecord[]>;
  /** Per window start: up runs and up-or-down runs since then (error runs count in neither). */
  uptime(monitorId: string, since: readonly number[]): Promise<{ up: number; total: number }[]>;
  listIncidents(monitorId: string, limit: number): Promise<IncidentRecord[]>;
  openIncident(monitorId: string): Promise<IncidentRecord | undefined>;

  listDeliveries(monitorId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Pending deliveries whose next attempt is due by `at`, oldest first (the in-process sender). */
  dueDeliveries(at: number, limit: number): Promise<DeliveryRecord[]>;
  deliveryById(id: string): Promise<DeliveryRecord | undefined>;
  /** Appends the attempt and sets the state; `removeWebhook` drops the URL from the monitor (a 410). */
  recordAttempt(
    id: string,
    attempt: DeliveryAttempt,
    state: DeliveryState,
    nextAttemptAt: number | null,
    removeWebhook: boolean,
  ): Promise<void>;

  /** Deletes runs, ended incidents and settled deliveries older than `before`; returns the rows deleted. */
  prune(before: number): Promise<number>;
  close(): Promise<void>;
}
