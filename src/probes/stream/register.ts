import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Resolver } from '../../dns/resolver.ts';
import { registerPingRoute } from '../ping/route.ts';
import { createHelperSpawner } from '../spawn/spawn-helper.ts';
import { createSpawnTurns } from '../spawn/spawn-turns.ts';
import type { Spawner } from '../spawn/spawner.ts';
import { registerTracerouteRoute } from '../traceroute/route.ts';
import type { ProbeRouteDeps } from './probe-route.ts';
import { createStreamSlots } from './slots.ts';

/** /ping and /traceroute, sharing one set of concurrency caps. */
export function registerProbeRoutes(
  app: FastifyInstance,
  options: { config: Config; resolver: Resolver; now: () => number; spawner?: Spawner | undefined },
): void {
  const { config } = options;
  // The tools are started by a small helper process (see spawn-helper.ts), unless a test injects its own.
  let spawner = options.spawner;
  if (!spawner) {
    const helper = createHelperSpawner();
    app.addHook('onClose', () => helper.close());
    spawner = helper.spawner;
  }
  const deps: ProbeRouteDeps = {
    resolver: options.resolver,
    policy: { allowPrivate: config.allowPrivateTargets },
    spawner,
    spawnTurns: createSpawnTurns(),
    slots: createStreamSlots({ maxConcurrent: config.streamMaxConcurrent, maxPerClient: config.streamMaxPerClient }),
    shutdownSignal: app.shutdownSignal,
    now: options.now,
    resolveDeadlineMs: config.dnsTimeoutMs * 3,
  };
  registerPingRoute(app, deps);
  registerTracerouteRoute(app, { ...deps, hostnameWaitMs: config.tracerouteHostnameWaitMs });
}
