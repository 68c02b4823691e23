// The baseline: a bare node:http server answering a fixed JSON body the size of /api/v1/ipv6's.
import { createServer } from 'node:http';

const body = JSON.stringify({
  ip: '127.0.0.1',
  is_ipv4: true,
  is_ipv6: false,
  protocol: 'IPv4',
  timestamp: '2026-01-01T00:00:00Z',
});
const server = createServer((_request, response) => {
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
