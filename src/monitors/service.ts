import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import { normaliseEmail } from '../accounts/email.ts';
import { encryptApiKey } from '../accounts/key-crypto.ts';
import type { Keyring } from '../accounts/keyring.ts';
import { ApiError, apiErrors } from '../http/errors.ts';
import type { Mesh } from '../mesh/service.ts';
import type { Plan } from '../storage/repository.ts';
import { conditionOptions, MONITOR_CONDITIONS } from './monitor-types.ts';
import { type MonitorRecord, type MonitorRepository, type MonitorSettings, webhookSecretAad } from './repository.ts';
import type { MonitorScheduler } from './scheduler.ts';
import type { MonitorChange, MonitorRequest } from './schema.ts';
import { incidentView, runView, settingsView } from './views.ts';
import { type WebhookReach, webhookUrlProblem } from './webhook-sender.ts';

export interface MonitorOwner {
  readonly accountId: string;
  readonly plan: Plan;
}

export interface MonitorLimits {
  readonly minIntervalSeconds: Readonly<Record<Plan, number>>;
  readonly monitors: Readonly<Record<Plan, number>>;
  readonly smtp: boolean;
}

const DAY_MS = 86_400_000;
const UPTIME_WINDOWS = [
  ['24h', DAY_MS],
  ['7d', 7 * DAY_MS],
  ['30d', 30 * DAY_MS],
] as const;

const invalid = (field: string, problem: string) =>
  apiErrors.badRequest(`Invalid field '${field}' in the body: ${problem}.`);

/** A change to any of these is a new check: its state and baseline start again. */
const CHECK_FIELDS = ['type', 'target', 'options', 'conditions'] as const;

/** What the monitors' routes do: every setting checked as the check's own route and the mesh would check it. */
export function createMonitorService(deps: {
  repository: MonitorRepository;
  mesh: Mesh;
  scheduler: MonitorScheduler;
  keyring: Keyring;
  reach: WebhookReach;
  limits: MonitorLimits;
  now: () => number;
}) {
  const { repository, scheduler, now } = deps;

  async function checked(owner: MonitorOwner, settings: MonitorSettings): Promise<MonitorSettings> {
    const floor = deps.limits.minIntervalSeconds[owner.plan];
    if (settings.intervalSeconds < floor) {
      throw invalid(
        'interval_seconds',
        `a ${owner.plan} account's monitors run at most every ${floor} s (MONITOR_MIN_INTERVAL_SECONDS)`,
      );
    }
    const allowed = Object.keys(MONITOR_CONDITIONS[settings.type].properties);
    for (const name of Object.keys(settings.conditions)) {
      if (!allowed.includes(name)) {
        throw invalid(
          `conditions.${name}`,
          `is not a condition of ${settings.type} (its conditions: ${allowed.join(', ')})`,
        );
      }
    }
    let options: Record<string, string>;
    try {
      // The measurement a run makes, planned and not started: the route's own schema checks the
      // options, the mesh the `from` selectors (a selector that matches no node now is refused).
      const plan = await deps.mesh.plan(
        {
          type: settings.type,
          target: settings.target,
          options: { ...settings.options, ...conditionOptions(settings.type, settings.conditions) },
          locations: [...settings.locations],
        },
        { tier: owner.plan, subject: `account:${owner.accountId}`, accountId: owner.accountId },
        '127.0.0.1',
      );
      options = Object.fromEntries(Object.entries(plan.record.options).filter(([name]) => name in settings.options));
    } catch (error) {
      if (error instanceof ApiError) throw apiErrors.badRequest(error.message.replace(/\blocations\[/g, 'from['));
      throw apiErrors.meshUnavailable();
    }
    for (const [index, url] of settings.webhooks.entries()) {
      const problem = await webhookUrlProblem(url, deps.reach);
      if (problem !== null) throw invalid(`notify.webhooks[${index}]`, problem);
    }
    if (settings.emails.length > 0 && !deps.limits.smtp) {
      throw invalid('notify.emails', 'this service cannot send e-mail (SMTP_URL is not set)');
    }
    const emails = settings.emails.map((raw, index) => {
      const email = normaliseEmail(raw);
      if (!email.ok) throw invalid(`notify.emails[${index}]`, email.reason);
      return email.email;
    });
    return { ...settings, options, emails };
  }

  async function view(monitor: MonitorRecord) {
    const time = now();
    const [latest] = await repository.listRuns(monitor.id, 1);
    const counts = await repository.uptime(
      monitor.id,
      UPTIME_WINDOWS.map(([, span]) => time - span),
    );
    const uptime = Object.fromEntries(
      UPTIME_WINDOWS.map(([name], i) => {
        const { up, total } = counts[i] ?? { up: 0, total: 0 };
        return [name, total === 0 ? null : Math.round((up / total) * 100_000) / 1000];
      }),
    ) as Record<(typeof UPTIME_WINDOWS)[number][0], number | null>;
    const incident = monitor.state === 'down' ? await repository.openIncident(monitor.id) : undefined;
    return {
      ...settingsView(monitor),
      state: monitor.state,
      state_since: monitor.stateSince === null ? null : new Date(monitor.stateSince).toISOString(),
      last_run: latest ? runView(latest) : null,
      uptime,
      incident: incident ? incidentView(incident) : null,
    };
  }

  async function owned(owner: MonitorOwner, id: string): Promise<MonitorRecord> {
    const monitor = await repository.findMonitor(owner.accountId, id);
    if (!monitor) throw apiErrors.monitorNotFound();
    return monitor;
  }

  return {
    repository,
    view,
    owned,
    async create(owner: MonitorOwner, body: Static<typeof MonitorRequest>) {
      const time = now();
      const settings = await checked(owner, {
        name: body.name.trim(),
        type: body.type,
        target: body.target,
        options: Object.fromEntries(Object.entries(body.options ?? {}).map(([name, value]) => [name, String(value)])),
        intervalSeconds: body.interval_seconds ?? 300,
        locations: body.from ?? [],
        conditions: body.conditions ?? MONITOR_CONDITIONS[body.type].defaults,
        webhooks: body.notify?.webhooks ?? [],
        emails: body.notify?.emails ?? [],
        pausedAt: body.paused === true ? time : null,
      });
      const id = randomBytes(12).toString('hex');
      const secret = `whsec_${randomBytes(24).toString('base64url')}`;
      const record: MonitorRecord = {
        ...settings,
        id,
        accountId: owner.accountId,
        secret: encryptApiKey(deps.keyring.current, webhookSecretAad(id), secret),
        createdAt: time,
        updatedAt: time,
        nextRunAt: time,
        state: null,
        stateSince: null,
        stateDueAt: null,
        baseline: null,
      };
      const quota = deps.limits.monitors[owner.plan];
      if ((await repository.createMonitor(record, quota)) === 'quota-reached') {
        throw apiErrors.monitorQuotaReached(owner.plan, quota);
      }
      if (record.pausedAt === null)
        await scheduler.schedule({ id, intervalSeconds: record.intervalSeconds, firstAt: time });
      return { ...(await view(record)), webhook_secret: secret };
    },

    async change(owner: MonitorOwner, id: string, body: Static<typeof MonitorChange>) {
      const current = await owned(owner, id);
      const type = body.type ?? current.type;
      const time = now();
      const settings = await checked(owner, {
        name: body.name?.trim() ?? current.name,
        type,
        target: body.target ?? current.target,
        options:
          body.options === undefined
            ? current.options
            : Object.fromEntries(Object.entries(body.options).map(([name, value]) => [name, String(value)])),
        intervalSeconds: body.interval_seconds ?? current.intervalSeconds,
        locations: body.from ?? current.locations,
        // A new type without conditions of its own gets its defaults: the old ones would not fit.
        conditions:
          body.conditions ??
          (body.type && body.type !== current.type ? MONITOR_CONDITIONS[type].defaults : current.conditions),
        webhooks: body.notify?.webhooks ?? (body.notify ? [] : current.webhooks),
        emails: body.notify?.emails ?? (body.notify ? [] : current.emails),
        pausedAt: body.paused === undefined ? current.pausedAt : body.paused ? (current.pausedAt ?? time) : null,
      });
      const checkChanged = CHECK_FIELDS.some((field) => body[field] !== undefined);
      const updated = await repository.updateMonitor(owner.accountId, id, settings, time, checkChanged);
      if (!updated) throw apiErrors.monitorNotFound();
      if (updated.pausedAt !== null) await scheduler.unschedule(id);
      else if (
        current.pausedAt !== null ||
        checkChanged ||
        body.interval_seconds !== undefined ||
        body.from !== undefined
      ) {
        await scheduler.schedule({ id, intervalSeconds: updated.intervalSeconds, firstAt: time });
      }
      return view(updated);
    },

    async remove(owner: MonitorOwner, id: string) {
      if (!(await repository.deleteMonitor(owner.accountId, id))) throw apiErrors.monitorNotFound();
      await scheduler.unschedule(id);
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
