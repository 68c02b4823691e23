import type { FastifyInstance } from 'fastify';
import type { Resolver } from '../../dns/resolver.ts';
import type { TargetPolicy } from '../../dns/target-policy.ts';
import { hookList } from '../../http/route-config.ts';
import { createHelperSpawner } from '../spawn/spawn-helper.ts';
import { createSpawnTurns } from '../spawn/spawn-turns.ts';
import type { Spawner } from '../spawn/spawner.ts';
import { answerFinishedStreams } from './finished-stream.ts';
import type { ProbeRouteDeps, StreamCounts } from './probe-route.ts';
import type { StreamSlots } from './slots.ts';

/** The probes' slice of the configuration. */
export interface ProbeConfig {
  /** ALLOW_PRIVATE_TARGETS, read once into the policy every consumer shares. */
  readonly allowPrivateTargets: TargetPolicy;
  readonly streamMaxConcurrent: number;
  readonly streamMaxPerClient: number;
  readonly streamSlotLeaseSeconds: number;
  /** How long one DNS query waits for a server; a lookup gives up after 3 times this. */
  readonly dnsTimeoutMs: number;
}

/**
 * What every probe route is built from, made once in the composition root and handed to each tool's
 * route, so the concurrency caps count all the tools together.
 */
export function createProbeRouteDeps(
  app: FastifyInstance,
  config: ProbeConfig,
  options: {
    resolver: Resolver;
    now: () => number;
    spawner?: Spawner | undefined;
    /** The stream caps' counts: this process's, or Redis's (scale/shared-state.ts chooses). */
    slots: StreamSlots;
    /** Told of each stream's start and end (netinfo_streams_*). */
    streamCounts: StreamCounts;
  },
): ProbeRouteDeps {
  // First among each stream route's own hooks, ahead of the rate limiter's (whose onRoute, registered
  // earlier, has already put its hook there): a reconnect costs nothing, and no other route pays.
  app.addHook('onRoute', (route) => {
    if (route.config?.stream === true) route.onRequest = [answerFinishedStreams, ...hookList(route.onRequest)];
  });
  // The tools are started by a small helper process (see spawn-helper.ts), unless a test injects its own.
  let spawner = options.spawner;
  if (!spawner) {
    const helper = createHelperSpawner();
    app.addHook('onClose', () => helper.close());
    spawner = helper.spawner;
  }
  return {
    resolver: options.resolver,
    policy: config.allowPrivateTargets,
    spawner,
    spawnTurns: createSpawnTurns(),
    slots: options.slots,
    shutdownSignal: app.shutdownSignal,
    now: options.now,
    resolveDeadlineMs: config.dnsTimeoutMs * 3,
    streamCounts: options.streamCounts,
  };
}
