// A TLS server for `npm run bench:ssl-protocols`, in its own process as a real server would be, on
// one thread. By default every version from TLSv1 to TLSv1.3 (security level 0), so every version
// probe gets a ServerHello (the most work protocols=true can cost the server: three of them sign a
// key exchange); BENCH_MIN_VERSION=TLSv1.2 makes it a server configured as most are today. Key and
// chain from BENCH_KEY_FILE and BENCH_CERT_FILE; prints the port it listens on.
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

const server = tls.createServer(
  {
    key: readFileSync(process.env.BENCH_KEY_FILE as string),
    cert: readFileSync(process.env.BENCH_CERT_FILE as string),
    minVersion: (process.env.BENCH_MIN_VERSION ?? 'TLSv1') as 'TLSv1' | 'TLSv1.2',
    ciphers: 'ALL:@SECLEVEL=0',
  },
  (socket) => socket.end(),
);
server.on('tlsClientError', () => {});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
