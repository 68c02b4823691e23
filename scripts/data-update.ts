// `npm run data:update`: downloads current City/ASN data (DB-IP Lite, or MaxMind GeoLite2 with
// MAXMIND_LICENSE_KEY) and the security feeds into DATA_DIR; a running service picks them up
// within seconds, without a restart. Exit status 1 when any source failed (its old copy stays).
import { loadConfigOrExit } from '../src/config.ts';
import { UpdateError } from '../src/ipinfo/updater/download.ts';
import { runDataUpdate } from '../src/ipinfo/updater/run-update.ts';
import { updatePlanFromConfig } from '../src/ipinfo/updater/update-plan.ts';
import { DirectoryError, prepareDirectory } from '../src/storage/data-dir.ts';

const config = loadConfigOrExit(2);
try {
  prepareDirectory(config.dataDir, 'DATA_DIR');
} catch (error) {
  if (!(error instanceof DirectoryError)) throw error;
  console.error(error.message);
  process.exit(2);
}
console.log(`updating IP data in ${config.dataDir}`);
try {
  const reports = await runDataUpdate(updatePlanFromConfig(config), { log: (line) => console.log(`  ${line}`) });
  const failed = reports.filter((report) => report.outcome === 'failed');
  console.log(failed.length === 0 ? 'done' : `done; ${failed.length} source(s) failed and kept their previous data`);
  process.exitCode = failed.length === 0 ? 0 : 1;
} catch (error) {
  if (!(error instanceof UpdateError)) throw error;
  console.error(`update refused: ${error.message}`);
  process.exitCode = 1;
}
