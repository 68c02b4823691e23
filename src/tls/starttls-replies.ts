/**
 * The STARTTLS exchanges /ssl runs before its handshake, as data, and a pure reader of the server's
 * replies. Each step sends one command (the first only reads the greeting) and names the reply that
 * lets the exchange go on; anything else ends the check with a 502 naming the step.
 */
export const STARTTLS_PROTOCOLS = ['smtp', 'imap', 'pop3', 'ftp'] as const;
export type StarttlsProtocol = (typeof STARTTLS_PROTOCOLS)[number];

/** The ports these protocols upgrade on when the caller names none. */
export const STARTTLS_DEFAULT_PORTS: Readonly<Record<StarttlsProtocol, number>> = {
  smtp: 25,
  imap: 143,
  pop3: 110,
  ftp: 21,
};

export interface StarttlsStep {
  /** What the step is called in error messages: 'greeting', 'EHLO', 'STARTTLS', ... */
  name: string;
  /** The line sent (CRLF is added); null for the greeting, which is only read. */
  command: string | null;
  /** The reply status that lets the exchange go on: '220', 'OK', '+OK', '234'. */
  expect: string;
}

export const IMAP_TAG = 'a1';

/**
 * The exchange for each protocol. `client` is what EHLO says about us: the address literal of our
 * end of the connection (`[192.0.2.1]`, `[IPv6:2001:db8::1]`), as RFC 5321 section 4.1.4 allows
 * when there is no meaningful name.
 */
export function starttlsSteps(protocol: StarttlsProtocol, client: string): StarttlsStep[] {
  switch (protocol) {
    case 'smtp':
      return [
        { name: 'greeting', command: null, expect: '220' },
        { name: 'EHLO', command: `EHLO ${client}`, expect: '250' },
        { name: 'STARTTLS', command: 'STARTTLS', expect: '220' },
      ];
    case 'imap':
      return [
        { name: 'greeting', command: null, expect: 'OK' },
        { name: 'STARTTLS', command: `${IMAP_TAG} STARTTLS`, expect: 'OK' },
      ];
    case 'pop3':
      return [
        { name: 'greeting', command: null, expect: '+OK' },
        { name: 'STLS', command: 'STLS', expect: '+OK' },
      ];
    case 'ftp':
      return [
        { name: 'greeting', command: null, expect: '220' },
        { name: 'AUTH TLS', command: 'AUTH TLS', expect: '234' },
      ];
  }
}

/** The EHLO argument for our end of the connection. */
export function addressLiteral(address: string): string {
  return address.includes(':') ? `[IPv6:${address}]` : `[${address}]`;
}

export type ReplyRead =
  | { kind: 'incomplete' }
  /** `status`: the SMTP/FTP code, IMAP's OK/NO/BAD/BYE/PREAUTH, POP3's +OK/-ERR; `text`: the reply's lines. */
  | { kind: 'reply'; status: string; text: string; consumed: number }
  | { kind: 'garbage'; line: string };

/** A line longer than this, or a reply of more lines, is not a reply these protocols send. */
export const MAX_LINE = 4096;
const MAX_LINES = 200;

/** Complete lines at the start of `buffer` (CRLF or a bare LF) with where each ends; a partial last line is left. */
function completeLines(buffer: string): { line: string; end: number }[] {
  const lines: { line: string; end: number }[] = [];
  let start = 0;
  for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n', start)) {
    lines.push({ line: buffer.slice(start, buffer[newline - 1] === '\r' ? newline - 1 : newline), end: newline + 1 });
    start = newline + 1;
    if (lines.length > MAX_LINES) break;
  }
  return lines;
}

/**
 * Reads one reply of `protocol` from the start of `buffer` (text received so far, latin1). `step`
 * says which reply is awaited: IMAP's greeting is untagged, its STARTTLS answer tagged (untagged
 * lines before it are skipped). SMTP replies (RFC 5321 section 4.2.1) are `ddd-text` lines ended by
 * a `ddd text` line of the same code; FTP's (RFC 959 section 4.2) may carry any lines between the
 * first `ddd-` and the last `ddd `; POP3's are one `+OK`/`-ERR` line.
 */
export function readReply(protocol: StarttlsProtocol, buffer: string, step: 'greeting' | 'command'): ReplyRead {
  const lines = completeLines(buffer);
  const partial = buffer.length - (lines.at(-1)?.end ?? 0);
  const garbage = (line: string): ReplyRead => ({ kind: 'garbage', line });
  if (lines.length > MAX_LINES) return garbage(`more than ${MAX_LINES} lines without an end`);
  for (const [index, { line, end }] of lines.entries()) {
    if (line.length > MAX_LINE) return garbage(line);
    const text = () =>
      lines
        .slice(0, index + 1)
        .map((entry) => entry.line)
        .join('\n');
    switch (protocol) {
      case 'smtp': {
        const match = /^(\d{3})(?:([ -])(.*))?$/.exec(line);
        const first = lines[0]?.line.slice(0, 3);
        if (!match || match[1] !== first) return garbage(line);
        if (match[2] !== '-') return { kind: 'reply', status: match[1] as string, text: text(), consumed: end };
        break;
      }
      case 'ftp': {
        const code = /^(\d{3})([ -]|$)/.exec(lines[0]?.line ?? '');
        if (!code) return garbage(lines[0]?.line ?? line);
        if (index === 0 && code[2] !== '-')
          return { kind: 'reply', status: code[1] as string, text: text(), consumed: end };
        if (index > 0 && (line === code[1] || line.startsWith(`${code[1]} `))) {
          return { kind: 'reply', status: code[1] as string, text: text(), consumed: end };
        }
        break;
      }
      case 'pop3': {
        const match = /^(\+OK|-ERR)(?:\s|$)/.exec(line);
        if (!match) return garbage(line);
        return { kind: 'reply', status: match[1] as string, text: line, consumed: end };
      }
      case 'imap': {
        if (step === 'greeting') {
          const match = /^\* (OK|PREAUTH|BYE)(?:\s|$)/i.exec(line);
          if (!match) return garbage(line);
          return { kind: 'reply', status: (match[1] as string).toUpperCase(), text: line, consumed: end };
        }
        const tagged = new RegExp(`^${IMAP_TAG} (OK|NO|BAD)(?:\\s|$)`, 'i').exec(line);
        if (tagged) return { kind: 'reply', status: (tagged[1] as string).toUpperCase(), text: line, consumed: end };
        // Untagged data (a capability list, a notice) may come before the tagged answer.
        if (!line.startsWith('* ')) return garbage(line);
        break;
      }
    }
  }
  const rest = buffer.slice(buffer.length - partial);
  if (partial > MAX_LINE) return garbage(rest.slice(0, 80));
  // A first line that cannot become a reply is garbage now, not after the time limit.
  if (lines.length === 0 && !couldStartReply(protocol, rest, step)) return garbage(rest.slice(0, 80));
  return { kind: 'incomplete' };
}

function couldStartReply(protocol: StarttlsProtocol, start: string, step: 'greeting' | 'command'): boolean {
  const prefixOf = (words: string[]) => words.some((word) => word.startsWith(start.slice(0, word.length)));
  switch (protocol) {
    case 'smtp':
    case 'ftp':
      return /^\d{0,3}$/.test(start.slice(0, 3));
    case 'pop3':
      return prefixOf(['+OK', '-ERR']);
    case 'imap':
      return step === 'greeting' ? prefixOf(['* ']) : true;
  }
}
