// The data update run by the service itself (DATA_REFRESH_HOURS), in a child process so that the
// downloads and their verification (a City database is read whole to be checked) never grow the
// serving process. The plan arrives on stdin (it may hold a licence key, which argv would show to
// every user of `ps`); the reports leave as one JSON line on stdout.
import { text } from 'node:stream/consumers';
import { runDataUpdate } from './run-update.ts';
import type { UpdatePlan } from './update-plan.ts';

try {
  const plan = JSON.parse(await text(process.stdin)) as UpdatePlan;
  const reports = await runDataUpdate(plan);
  process.stdout.write(`${JSON.stringify({ reports })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
  process.exitCode = 1;
}
