import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PortRanges } from '../httpcheck/config.ts';
import type { IpDataStore } from '../ipinfo/data/ip-data-store.ts';
import type { InternalRequests } from '../limits/internal-request.ts';
import { VERSION } from '../version.ts';
import type { MeshConfig } from './config.ts';
import { describeNode, type NodeFacts } from './describe-node.ts';
import { hasRawSockets, installedTools, publicInterfaceAddresses } from './node-info.ts';
import { createOptionsCheck } from './options.ts';
import { createMesh, type Mesh } from './service.ts';
import type { MeshStore, MeshStoreOptions } from './store.ts';

/** The mesh of this node, from its settings: what it is, where measurements live, how jobs are signed. */
export async function buildMesh(
  app: FastifyInstance,
  config: MeshConfig,
  deps: {
    meshStore: (options: MeshStoreOptions) => MeshStore;
    /** True when Redis is configured: without it the node is a mesh of one whatever MESH_SECRET says. */
    shared: boolean;
    ipData: IpDataStore;
    internal: InternalRequests;
    /** HTTP_CHECK_PORTS: an HTTP target on another port is refused when the measurement is asked. */
    httpPorts: PortRanges;
    now: () => number;
  },
): Promise<Mesh> {
  const secret = deps.shared ? config.meshSecret : null;
  const store = deps.meshStore({
    secret,
    heartbeatMs: config.nodeHeartbeatSeconds * 1000,
    nodeTimeoutMs: config.nodeTimeoutSeconds * 1000,
    ttlMs: config.measurementTtlSeconds * 1000,
  });
  const facts: NodeFacts = {
    name: config.nodeName,
    location: config.nodeLocation,
    address: config.nodeAddress,
    tags: config.nodeTags,
    tools: await installedTools(),
    interfaces: publicInterfaceAddresses(),
    rawSockets: await hasRawSockets(),
    version: VERSION,
  };
  return createMesh(app, config, {
    store,
    // A mesh of one signs with a key of its own: the jobs take the same path either way.
    secret: secret ?? randomBytes(32).toString('hex'),
    describeSelf: () => describeNode(facts, deps.ipData.current),
    checkOptions: createOptionsCheck(deps.httpPorts),
    internal: deps.internal,
    now: deps.now,
  });
}
