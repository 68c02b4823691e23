import net from 'node:net';
import tls from 'node:tls';
import type { StarttlsProtocol } from '../../src/tls/starttls-replies.ts';

/**
 * A local server speaking just enough SMTP, IMAP, POP3 or FTP to run the STARTTLS exchange, then
 * TLS with the given context; or misbehaving on purpose:
 * - 'upgrade': answers every command and starts TLS after the go-ahead;
 * - 'silent': accepts the connection and never says anything;
 * - 'stall': greets and answers EHLO, then never answers the upgrade command;
 * - 'garbage': answers the connection with an HTTP error;
 * - 'refuse': greets, then refuses the upgrade;
 * - 'hangup': greets, then closes the connection at the upgrade command;
 * - 'inject': sends a line after its go-ahead, where the TLS handshake should begin.
 * `commands` records every line each connection sent, to check what the client says.
 */
export type StarttlsBehaviour = 'upgrade' | 'silent' | 'stall' | 'garbage' | 'refuse' | 'hangup' | 'inject';

export interface FakeStarttlsServer {
  port: number;
  commands: string[][];
  close(): Promise<void>;
}

const SCRIPTS: Record<
  StarttlsProtocol,
  { greeting: string; upgrade: string; goAhead: string; refusal: string; other: (line: string) => string }
> = {
  smtp: {
    // A multi-line greeting and EHLO answer, as large providers send.
    greeting: '220-mx.fake.test ESMTP\r\n220 ready\r\n',
    upgrade: 'STARTTLS',
    goAhead: '220 2.0.0 Ready to start TLS\r\n',
    refusal: '454 4.7.0 TLS not available due to local problem\r\n',
    other: (line) =>
      line.startsWith('EHLO ') ? '250-mx.fake.test\r\n250-PIPELINING\r\n250 STARTTLS\r\n' : '500 what\r\n',
  },
  imap: {
    greeting: '* OK [CAPABILITY IMAP4rev1 STARTTLS] fake ready\r\n',
    upgrade: 'a1 STARTTLS',
    // Untagged data before the tagged answer is allowed.
    goAhead: '* OK still here\r\na1 OK Begin TLS negotiation now\r\n',
    refusal: 'a1 NO STARTTLS is disabled\r\n',
    other: () => '* BAD what\r\n',
  },
  pop3: {
    greeting: '+OK fake POP3 ready\r\n',
    upgrade: 'STLS',
    goAhead: '+OK Begin TLS negotiation\r\n',
    refusal: '-ERR TLS not available\r\n',
    other: () => '-ERR what\r\n',
  },
  ftp: {
    greeting: '220-Welcome to the fake FTP\r\n  service\r\n220 ready\r\n',
    upgrade: 'AUTH TLS',
    goAhead: '234 AUTH TLS successful\r\n',
    refusal: '534 Local policy on server does not allow TLS\r\n',
    other: () => '500 what\r\n',
  },
};

export async function startFakeStarttlsServer(
  protocol: StarttlsProtocol,
  behaviour: StarttlsBehaviour,
  secureContext: tls.SecureContext,
): Promise<FakeStarttlsServer> {
  const script = SCRIPTS[protocol];
  const commands: string[][] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const sent: string[] = [];
    commands.push(sent);
    if (behaviour === 'silent') {
      socket.resume();
      return;
    }
    if (behaviour === 'garbage') {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.write(script.greeting);
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let newline = buffer.indexOf('\r\n'); newline !== -1; newline = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        sent.push(line);
        if (line !== script.upgrade) {
          socket.write(script.other(line));
          continue;
        }
        if (behaviour === 'stall') return;
        if (behaviour === 'hangup') {
          socket.end();
          return;
        }
        if (behaviour === 'inject') {
          socket.write(`${script.goAhead}250 injected\r\n`);
          return;
        }
        if (behaviour === 'refuse') {
          socket.write(script.refusal);
          continue;
        }
        socket.off('data', onData);
        socket.pause();
        socket.write(script.goAhead);
        const secure = new tls.TLSSocket(socket, { isServer: true, secureContext });
        secure.on('error', () => {});
        secure.on('secure', () => secure.end());
        return;
      }
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    commands,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
