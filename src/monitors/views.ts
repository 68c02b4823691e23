import type { DeliveryRecord, IncidentRecord, MonitorRecord, RunRecord } from './repository.ts';

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function runView(run: RunRecord) {
  return {
    id: run.id,
    due_at: iso(run.dueAt) as string,
    started_at: iso(run.startedAt) as string,
    node: run.node,
    duration_ms: run.durationMs,
    response_ms: run.responseMs,
    state: run.state,
    cause: run.cause,
    summary: run.summary,
  };
}

export function incidentView(incident: IncidentRecord) {
  return {
    id: incident.id,
    started_at: iso(incident.startedAt) as string,
    ended_at: iso(incident.endedAt),
    cause: incident.cause,
  };
}

export function deliveryView(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    url: delivery.url,
    event: delivery.event,
    created_at: iso(delivery.createdAt) as string,
    state: delivery.state,
    next_attempt_at: iso(delivery.nextAttemptAt),
    attempts: delivery.attempts.map((attempt) => ({ ...attempt, at: iso(attempt.at) as string })),
  };
}

/** The monitor as its owner set it (what PATCH takes back). */
export function settingsView(monitor: MonitorRecord) {
  return {
    id: monitor.id,
    name: monitor.name,
    type: monitor.type,
    target: monitor.target,
    options: { ...monitor.options },
    interval_seconds: monitor.intervalSeconds,
    from: [...monitor.locations],
    conditions: monitor.conditions,
    notify: { webhooks: [...monitor.webhooks], emails: [...monitor.emails] },
    paused: monitor.pausedAt !== null,
    created_at: iso(monitor.createdAt) as string,
    updated_at: iso(monitor.updatedAt) as string,
  };
}
