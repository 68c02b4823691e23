import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../accounts/accounts.ts';
import { watchMasterKey } from '../accounts/master-key-check.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { TargetPolicy } from '../dns/target-policy.ts';
import type { PortRanges } from '../httpcheck/config.ts';
import type { MeshConfig } from '../mesh/config.ts';
import type { Mesh } from '../mesh/service.ts';
import type { DatabaseLocation } from '../storage/config.ts';
import type { MonitorConfig } from './config.ts';
import { createEmailSender } from './email-sender.ts';
import { createLocalScheduler } from './local-scheduler.ts';
import { createMonitorRepository } from './monitor-repository.ts';
import { createNotifier } from './notifier.ts';
import { type MonitorRepository, webhookSecretAad } from './repository.ts';
import { createMonitorRunner } from './run-monitor.ts';
import { createMonitorService, type MonitorService } from './service.ts';
import { openMonitorSql } from './sql.ts';

const PRUNE_EVERY_MS = 3_600_000;

/**
 * Monitors from config: their repository (beside the accounts, in DATABASE_URL), the scheduler
 * (BullMQ with REDIS_URL, else this process), the notifier, and the runner, started when the app is
 * ready and stopped first at shutdown.
 */
export async function buildMonitors(
  app: FastifyInstance,
  config: MonitorConfig &
    Pick<MeshConfig, 'nodeTimeoutSeconds' | 'nodeHeartbeatSeconds'> & {
      readonly database: DatabaseLocation;
      readonly dataDir: string;
      readonly redisUrl: string | null;
      readonly allowPrivateTargets: TargetPolicy;
      readonly httpCheckPorts: PortRanges;
      readonly httpCheckTimeoutMs: number;
    },
  deps: {
    accounts: Accounts;
    mesh: Mesh;
    resolver: Resolver;
    trustedCertificates?: readonly string[];
    repository?: MonitorRepository;
    now: () => number;
  },
): Promise<MonitorService> {
  const { now } = deps;
  const log = app.log;
  const repository =
    deps.repository ??
    createMonitorRepository(
      await openMonitorSql(config.database, config.dataDir, (error) =>
        log.error({ err: { message: error.message } }, 'monitor database connection error'),
      ),
    );
  const scheduler =
    config.redisUrl === null
      ? createLocalScheduler({ repository, concurrency: config.monitorConcurrency, now, log })
      : // Loaded only with Redis: BullMQ and what it brings cost ~1.9 MB of source and its compiled code.
        (await import('./bullmq-scheduler.ts')).createBullmqScheduler({
          redisUrl: config.redisUrl,
          concurrency: config.monitorConcurrency,
          lockMs: config.nodeTimeoutSeconds * 1000,
          now,
          log,
        });
  const reach = {
    resolver: deps.resolver,
    policy: config.allowPrivateTargets,
    ports: config.httpCheckPorts,
    timeoutMs: config.httpCheckTimeoutMs,
    ...(deps.trustedCertificates ? { trustedCertificates: deps.trustedCertificates } : {}),
  };
  const email = config.smtpUrl === null ? null : createEmailSender(config.smtpUrl, config.smtpFrom);
  const notifier = createNotifier({
    repository,
    scheduler,
    keyring: deps.accounts.keyring,
    reach,
    email,
    retryBaseMs: config.webhookRetryBaseSeconds * 1000,
    now,
    log,
  });
  const run = createMonitorRunner({
    repository,
    mesh: deps.mesh,
    scheduler,
    notifier,
    sweepMs: (config.nodeHeartbeatSeconds * 1000) / 2,
    shutdown: app.shutdownSignal,
    now,
    log,
  });

  const prune = () =>
    repository
      .prune(now() - config.monitorHistoryDays * 86_400_000)
      .catch((error: Error) => log.warn({ err: { message: error.message } }, 'monitors: could not prune history'));
  let pruner: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await scheduler.start({ run, deliver: (id) => notifier.attempt(id) });
    pruner = setInterval(prune, PRUNE_EVERY_MS);
    pruner.unref();
    void prune();
  });
  app.addHook('preClose', async () => {
    clearInterval(pruner);
    await scheduler.close();
  });
  // Monitors made before a master key rotation sign with a secret under the old version: /readyz
  // says so when MASTER_KEY no longer holds it, as it does for API keys.
  const masterKey = watchMasterKey(
    {
      what: "monitors' webhook secrets",
      consequence: 'those monitors send no webhooks',
      aad: webhookSecretAad,
      onePerVersion: () => repository.oneSecretPerVersion(),
    },
    deps.accounts.keyring,
    log,
  );
  app.readiness.add('monitors', () => {
    const why = masterKey.problem();
    return why === undefined ? { state: 'ready' } : { state: 'degraded', detail: why };
  });
  app.addHook('onClose', async () => {
    masterKey.stop();
    email?.close();
    await repository.close();
  });
  return createMonitorService({
    repository,
    mesh: deps.mesh,
    scheduler,
    keyring: deps.accounts.keyring,
    reach,
    limits: {
      minIntervalSeconds: config.monitorMinIntervalSeconds,
      monitors: config.monitorLimits,
      smtp: email !== null,
    },
    now,
  });
}
