import { type Row, timeOrNull } from '../storage/rows.ts';
import type { MonitorState } from './monitor-types.ts';
import type { DeliveryRecord, IncidentRecord, MonitorRecord, RunRecord } from './repository.ts';

/** Rows of both databases as records: times through Number() (pg gives BIGINT as text), JSON columns parsed. */
export const json = (value: unknown) => JSON.stringify(value ?? null);
export const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : null);

export function toMonitor(row: Row): MonitorRecord {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    name: String(row.name),
    type: String(row.type) as MonitorRecord['type'],
    target: String(row.target),
    options: parsed(row.options),
    intervalSeconds: Number(row.interval_seconds),
    locations: parsed(row.locations),
    conditions: parsed(row.conditions),
    webhooks: parsed(row.webhooks),
    emails: parsed(row.emails),
    pausedAt: timeOrNull(row.paused_at),
    secret: {
      keyVersion: Number(row.secret_version),
      nonce: String(row.secret_nonce),
      ciphertext: String(row.secret_ciphertext),
      tag: String(row.secret_tag),
    },
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    nextRunAt: timeOrNull(row.next_run_at),
    state: (row.state ?? null) as MonitorState | null,
    stateSince: timeOrNull(row.state_since),
    stateDueAt: timeOrNull(row.state_due_at),
    baseline: parsed(row.baseline),
  };
}

export const toRun = (row: Row): RunRecord => ({
  id: String(row.id),
  monitorId: String(row.monitor_id),
  dueAt: Number(row.due_at),
  startedAt: Number(row.started_at),
  node: String(row.node),
  durationMs: Number(row.duration_ms),
  responseMs: row.response_ms === null ? null : Number(row.response_ms),
  state: String(row.state) as RunRecord['state'],
  cause: (row.cause ?? null) as string | null,
  summary: parsed(row.summary),
});

export const toIncident = (row: Row): IncidentRecord => ({
  id: String(row.id),
  monitorId: String(row.monitor_id),
  startedAt: Number(row.started_at),
  endedAt: timeOrNull(row.ended_at),
  cause: String(row.cause),
});

export const toDelivery = (row: Row): DeliveryRecord => ({
  id: String(row.id),
  monitorId: String(row.monitor_id),
  url: String(row.url),
  event: String(row.event),
  body: String(row.body),
  createdAt: Number(row.created_at),
  state: String(row.state) as DeliveryRecord['state'],
  attempts: parsed(row.attempts),
  nextAttemptAt: timeOrNull(row.next_attempt_at),
});
