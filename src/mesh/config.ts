import { hostname } from 'node:os';
import { type ConfigVariable, integerIn, numbersByName, text } from '../config-values.ts';
import type { Tier } from '../limits/tiers.ts';
import { type NodeLocation, parseNodeLocation } from './location.ts';

export const DEFAULT_MEASUREMENT_LIMITS: Readonly<Record<Tier, number>> = Object.freeze({
  public: 5,
  free: 20,
  pro: 100,
});

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const TAG = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** The measurements' mesh: who this node is and how the nodes find each other (docs/mesh.md). */
export const meshConfigVariables = {
  nodeName: {
    name: 'NODE_NAME',
    defaultText: 'the host name',
    description:
      "This instance's name in the mesh of measurements (letters, digits, `.`, `_`, `-`, at most 63): unique among the instances that share REDIS_URL; the WORKERS of one machine share it.",
    parse: (raw: string | undefined): string => {
      const value = text(hostname())(raw);
      if (!NAME.test(value)) throw new Error(`must be 1 to 63 letters, digits, ".", "_" or "-", got "${value}"`);
      return value;
    },
  },
  nodeLocation: {
    name: 'NODE_LOCATION',
    defaultText: 'empty',
    description:
      "Where this node is, for measurements' `locations`: `country=DE,city=Frankfurt` (also `continent=`, `latitude=`, `longitude=`; the continent follows from the country). Empty: found from the node's own public address (NODE_ADDRESS, else the first public address of its interfaces) in its IP data, else unknown.",
    parse: (raw: string | undefined): NodeLocation | null => parseNodeLocation(raw ?? ''),
  },
  nodeAddress: {
    name: 'NODE_ADDRESS',
    defaultText: 'empty',
    description:
      "This node's public address, when its interfaces do not show it (behind NAT): its location and ASN are looked up in the node's own IP data. Nothing is sent anywhere to find it.",
    parse: (raw: string | undefined): string | null => text('')(raw) || null,
  },
  nodeTags: {
    name: 'NODE_TAGS',
    defaultText: 'empty',
    description:
      'Comma-separated tags of this node (lower-case letters, digits, `.`, `_`, `-`), which a measurement can select by (`{"tag": "eu-transit"}`).',
    parse: (raw: string | undefined): readonly string[] => {
      const tags = text('')(raw)
        .split(',')
        .map((tag) => tag.trim().toLowerCase())
        .filter((tag) => tag !== '');
      for (const tag of tags) if (!TAG.test(tag)) throw new Error(`"${tag}" is not a tag (a-z, 0-9, ".", "_", "-")`);
      return Object.freeze([...new Set(tags)]);
    },
  },
  nodeHeartbeatSeconds: {
    name: 'NODE_HEARTBEAT_SECONDS',
    defaultText: '2',
    description:
      'How often a node announces itself in the mesh. A node whose probes are running is taken for dead when it misses two.',
    parse: integerIn(1, 60, 2),
  },
  nodeTimeoutSeconds: {
    name: 'NODE_TIMEOUT_SECONDS',
    defaultText: '10',
    description: 'A node silent this long leaves `GET /api/v1/nodes` and gets no new probes.',
    parse: integerIn(2, 600, 10),
  },
  measurementLimits: {
    name: 'MEASUREMENT_LIMITS',
    defaultText: 'public=5,free=20,pro=100',
    description:
      "Probes one measurement may have, per tier (a measurement's `limit` above the caller's is a 400). Tiers left out keep their default.",
    parse: numbersByName(DEFAULT_MEASUREMENT_LIMITS, 1, 9999),
  },
  measurementTtlSeconds: {
    name: 'MEASUREMENT_TTL_SECONDS',
    defaultText: '3600',
    description: "How long a measurement's events and results are kept after it was created.",
    parse: integerIn(60, 7 * 86_400, 3600),
  },
  meshSecret: {
    name: 'MESH_SECRET',
    defaultText: 'empty',
    description:
      "With REDIS_URL: the key (at least 32 characters) every node of one mesh shares; jobs are signed with it (HMAC-SHA256) and a node runs only jobs signed by it. Empty: this machine is a mesh of one (its WORKERS share a key of the supervisor's making).",
    parse: (raw: string | undefined): string | null => {
      const value = text('')(raw);
      if (value === '') return null;
      if (value.length < 32) throw new Error(`must be at least 32 characters (got ${value.length})`);
      return value;
    },
  },
} satisfies Record<string, ConfigVariable<unknown>>;

type Variables = typeof meshConfigVariables;
export type MeshConfig = { readonly [K in keyof Variables]: ReturnType<Variables[K]['parse']> };
