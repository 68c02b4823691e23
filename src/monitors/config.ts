import { type ConfigVariable, integerIn, numbersByName, text } from '../config-values.ts';
import type { Plan } from '../storage/repository.ts';

const byPlan = (free: number, pro: number): Readonly<Record<Plan, number>> => Object.freeze({ free, pro });

export const monitorConfigVariables = {
  monitorMinIntervalSeconds: {
    name: 'MONITOR_MIN_INTERVAL_SECONDS',
    defaultText: 'free=60,pro=30',
    description:
      'The shortest interval a monitor may have, per plan (a shorter `interval_seconds` is a 400 saying the floor). Tests and small private installs use 1.',
    parse: numbersByName(byPlan(60, 30), 1, 86_400),
  },
  monitorLimits: {
    name: 'MONITOR_LIMITS',
    defaultText: 'free=10,pro=200',
    description: 'Monitors one account may have, per plan (paused ones count).',
    parse: numbersByName(byPlan(10, 200), 0, 1_000_000),
  },
  monitorHistoryDays: {
    name: 'MONITOR_HISTORY_DAYS',
    defaultText: '30',
    description:
      "How long monitors' runs, ended incidents and settled deliveries are kept (uptime covers at most this).",
    parse: integerIn(1, 3650, 30),
  },
  monitorConcurrency: {
    name: 'MONITOR_CONCURRENCY',
    defaultText: '200',
    description:
      'Monitor runs one process has under way at once; runs due beyond it wait their turn (and start late). Most runs wait on the network, not the CPU.',
    parse: integerIn(1, 10_000, 200),
  },
  webhookRetryBaseSeconds: {
    name: 'WEBHOOK_RETRY_BASE_SECONDS',
    defaultText: '10',
    description:
      'A failed notification is tried again after this, then twice as long each time, for up to 24 hours after the first attempt.',
    parse: integerIn(1, 3600, 10),
  },
  smtpUrl: {
    name: 'SMTP_URL',
    defaultText: 'empty',
    description:
      "Where monitors' e-mails are sent: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://...:465`. Empty: monitors cannot have e-mail recipients (a 400 says so).",
    parse: (raw: string | undefined): string | null => {
      const value = text('')(raw);
      if (value === '') return null;
      const scheme = /^([a-z]+):\/\//i.exec(value)?.[1]?.toLowerCase();
      if (scheme !== 'smtp' && scheme !== 'smtps') throw new Error('must be an smtp:// or smtps:// URL');
      try {
        new URL(value);
      } catch {
        throw new Error('the smtp:// URL is malformed (expected smtp://user:password@host:port)');
      }
      return value;
    },
  },
  smtpFrom: {
    name: 'SMTP_FROM',
    defaultText: 'netinfo@<host name>',
    description: "The From address of monitors' e-mails.",
    parse: text(''),
  },
} satisfies Record<string, ConfigVariable<unknown>>;

type Variables = typeof monitorConfigVariables;
export type MonitorConfig = { readonly [K in keyof Variables]: ReturnType<Variables[K]['parse']> };
