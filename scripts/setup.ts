// Runs after `npm install`, on the Node that npm installed into node_modules/.bin.
import { ensureSystemPackages } from './system-packages.ts';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.warn(
    `netinfo: running on Node ${process.versions.node}; the project's scripts use Node 24 from node_modules/.bin.`,
  );
}
ensureSystemPackages('runtime', 'used by /api/v1/ping and /api/v1/traceroute');
