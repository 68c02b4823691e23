import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { decryptApiKey } from '../accounts/key-crypto.ts';
import type { Keyring } from '../accounts/keyring.ts';
import type { EmailSender } from './email-sender.ts';
import {
  type DeliveryRecord,
  type MonitorRecord,
  type MonitorRepository,
  type RunRecord,
  type StateChange,
  webhookSecretAad,
} from './repository.ts';
import type { MonitorScheduler } from './scheduler.ts';
import { notifies } from './tick.ts';
import { incidentView, runView } from './views.ts';
import { postWebhook, type WebhookReach } from './webhook-sender.ts';

/** A delivery is tried again, ever more rarely, for this long after it was made. */
const DELIVERY_WINDOW_MS = 86_400_000;
const MAILTO = 'mailto:';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the secret string as shown at creation. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Attempt n (1-based) failed: the next one `base * 2^(n-1)` later, or none past the window. */
export function nextAttemptAt(createdAt: number, attemptAt: number, attempts: number, baseMs: number): number | null {
  const next = attemptAt + baseMs * 2 ** (attempts - 1);
  return next > createdAt + DELIVERY_WINDOW_MS ? null : next;
}

/** The documented body of every notification (the schema of `notificationBody` in schema.ts describes it). */
export function notificationBody(change: StateChange, runs: readonly RunRecord[]) {
  const { monitor, state, previous, incident } = change;
  const run = runs.find((candidate) => candidate.state === state) ?? runs[0];
  return {
    event: `monitor.${state}`,
    monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: monitor.target },
    state,
    previous_state: previous,
    incident: incident === null ? null : incidentView(incident),
    run: run === undefined ? null : runView(run),
  };
}

function emailText(body: ReturnType<typeof notificationBody>): { subject: string; text: string } {
  const { monitor, state, previous_state: previous, incident, run } = body;
  const subject = `[netinfo] ${state.toUpperCase()}: ${monitor.name} (${monitor.type} ${monitor.target})`;
  const lines = [
    `Monitor:  ${monitor.name} (${monitor.id})`,
    `Check:    ${monitor.type} ${monitor.target}`,
    `State:    ${state}${previous === null ? '' : ` (was ${previous})`}`,
  ];
  if (incident) {
    lines.push(
      `Incident: ${incident.id}, since ${incident.started_at}${incident.ended_at ? `, ended ${incident.ended_at}` : ''}`,
    );
    lines.push(`Cause:    ${incident.cause}`);
  }
  if (run)
    lines.push(
      `Run:      ${run.started_at} from ${run.node}, ${run.duration_ms} ms${run.cause ? `: ${run.cause}` : ''}`,
    );
  return { subject, text: `${lines.join('\n')}\n` };
}

/**
 * Notifications of a change of state: made with the tick that changed it (the repository stores
 * both in one transaction), then each delivered and, when that fails, tried again with backoff
 * (WEBHOOK_RETRY_BASE_SECONDS, doubling) for up to 24 hours; every attempt is kept. A receiver that
 * answers 410 Gone is removed from the monitor.
 */
export function createNotifier(deps: {
  repository: MonitorRepository;
  scheduler: MonitorScheduler;
  keyring: Keyring;
  reach: WebhookReach;
  email: EmailSender | null;
  retryBaseMs: number;
  now: () => number;
  log: FastifyBaseLogger;
}) {
  const { repository, now, log } = deps;

  function secretOf(monitor: MonitorRecord): string {
    const material = deps.keyring.byVersion(monitor.secret.keyVersion);
    if (!material)
      throw new Error(
        `the webhook secret is under master key version ${monitor.secret.keyVersion}, which is not configured`,
      );
    return decryptApiKey(material, webhookSecretAad(monitor.id), monitor.secret);
  }

  async function send(delivery: DeliveryRecord) {
    if (delivery.url.startsWith(MAILTO)) {
      if (deps.email === null) return { status: null, error: 'SMTP_URL is not set' };
      const { subject, text } = emailText(JSON.parse(delivery.body));
      return deps.email.send(delivery.url.slice(MAILTO.length), subject, text);
    }
    const monitor = await repository.monitorById(delivery.monitorId);
    if (!monitor) return { status: null, error: 'the monitor was deleted' };
    const headers = {
      'x-netinfo-signature': signature(secretOf(monitor), delivery.body, Math.floor(now() / 1000)),
      'x-netinfo-event': delivery.event,
      'x-netinfo-delivery': delivery.id,
    };
    return postWebhook(delivery.url, delivery.body, headers, deps.reach);
  }

  return {
    /** The deliveries of a change, one per webhook and e-mail address; none for a first state of up. */
    deliveriesFor(change: StateChange, runs: readonly RunRecord[], at: number): DeliveryRecord[] {
      if (!notifies(change.previous, change.state)) return [];
      const body = JSON.stringify(notificationBody(change, runs));
      const urls = [...change.monitor.webhooks, ...change.monitor.emails.map((email) => `${MAILTO}${email}`)];
      return urls.map((url) => ({
        id: randomBytes(12).toString('hex'),
        monitorId: change.monitor.id,
        url,
        event: `monitor.${change.state}`,
        body,
        createdAt: at,
        state: 'pending' as const,
        attempts: [],
        nextAttemptAt: at,
      }));
    },

    async attempt(deliveryId: string): Promise<void> {
      const delivery = await repository.deliveryById(deliveryId);
      if (delivery?.state !== 'pending') return;
      const started = now();
      const outcome = await send(delivery).catch((error: Error) => {
        // Not the receiver's answer but ours (a secret under a master key version no longer
        // configured, say): the operator must hear of it, not only the monitor's owner.
        log.warn({ monitor: delivery.monitorId, delivery: delivery.id, reason: error.message }, 'monitors: not sent');
        return { status: null, error: error.message };
      });
      const attempt = { at: started, status: outcome.status, error: outcome.error, duration_ms: now() - started };
      const gone = outcome.status === 410 && !delivery.url.startsWith(MAILTO);
      const delivered = outcome.error === null && outcome.status !== null && outcome.status < 300;
      if (gone || delivered) {
        await repository.recordAttempt(delivery.id, attempt, gone ? 'removed' : 'delivered', null, gone);
        if (gone)
          log.info(
            { monitor: delivery.monitorId, url: delivery.url },
            'monitors: a webhook answered 410 and was removed',
          );
        return;
      }
      const next = nextAttemptAt(delivery.createdAt, started, delivery.attempts.length + 1, deps.retryBaseMs);
      await repository.recordAttempt(delivery.id, attempt, next === null ? 'failed' : 'pending', next, false);
      if (next !== null) await deps.scheduler.deliver(delivery.id, next);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
