// The baseline: a bare node:http server answering a fixed JSON body, by default the size of
// /api/v1/ipv6's; BARE_BODY_BYTES pads it to another scenario's answer size. BARE_HEADERS (JSON
// [name, value] pairs) makes it send those headers too, with the same fixed values every time: what
// node:http alone pays to send netinfo's headers, however a server above it computes them.
import { createServer } from 'node:http';

const answer = { ip: '127.0.0.1', is_ipv4: true, is_ipv6: false, protocol: 'IPv4', timestamp: '2026-01-01T00:00:00Z' };
const wanted = Number(process.env.BARE_BODY_BYTES ?? 0);
const unpadded = JSON.stringify(answer);
// `,"padding":""` costs 13 bytes; below that the plain answer is the closest.
const padding = wanted - unpadded.length - 13;
const body = padding >= 0 ? JSON.stringify({ ...answer, padding: 'x'.repeat(padding) }) : unpadded;

// Node writes these itself.
const OWN = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const given = (JSON.parse(process.env.BARE_HEADERS ?? '[]') as [string, string][]).filter(([name]) => !OWN.has(name));
const headers: Record<string, string | number> = {
  'content-type': 'application/json; charset=utf-8',
  ...Object.fromEntries(given),
  'content-length': Buffer.byteLength(body),
};

const server = createServer((_request, response) => {
  if (given.length > 0) response.writeHead(200, headers);
  else
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
