// Runs after `npm install`, on the Node that npm installed into node_modules/.bin.
import path from 'node:path';
import { ipDataPaths } from '../src/ipinfo/data/data-files.ts';
import { embeddedAsnRanges, embeddedCityDatabase } from '../src/ipinfo/data/embedded-data.ts';
import { ensureSystemPackages } from './system-packages.ts';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.warn(
    `netinfo: running on Node ${process.versions.node}; the project's scripts use Node 24 from node_modules/.bin.`,
  );
}
ensureSystemPackages('runtime');

// The embedded IP data (GeoLite2 City, the ASN ranges) is decompressed and compiled once into
// DATA_DIR, so that the first start is ready as fast as every later one (see docs/data.md).
try {
  const started = performance.now();
  const directory = ipDataPaths(path.resolve(process.env.DATA_DIR?.trim() || './data')).embedded;
  const prepared = await Promise.all([embeddedCityDatabase(directory), embeddedAsnRanges(directory)]);
  const uncached = prepared.flatMap((data) => (data.uncached === undefined ? [] : [data.uncached]));
  if (uncached.length > 0) console.warn(`netinfo: ${uncached.join('; ')}`);
  else
    console.log(`netinfo: embedded IP data prepared in ${directory} (${Math.round(performance.now() - started)} ms)`);
} catch (error) {
  console.warn(`netinfo: could not prepare the embedded IP data (${(error as Error).message}); the first start will.`);
}
