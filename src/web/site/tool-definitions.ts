import { TCP_PING_DEFAULT_PORT } from '../../probes/ping/tcp-session.ts';
import { TRACEROUTE_DEFAULT_TCP_PORT } from '../../probes/traceroute/args.ts';

/**
 * What a page adds to one API parameter: the schema gives the control's kind, options, limits,
 * default, required-ness and hint (tool-fields.ts); a page says only how it looks.
 */
export interface FieldLayout {
  readonly param: string;
  /** The page's own URL parameter where it differs from the API's (`/tools/dns?type=MX`: links are shared). */
  readonly name?: string;
  readonly label: string;
  readonly placeholder?: string;
  /** A short control (record type, count) beside the main one. */
  readonly narrow?: boolean;
  /** Show the first sentence of the parameter's description under the form. */
  readonly hint?: boolean;
  /** The value the form starts with where the API has none (it requires one, or its default depends on another parameter). */
  readonly initial?: string;
  /**
   * The words a select shows for its values. A `''` entry adds a first choice that sends nothing, so
   * the API's default applies (links made before the option existed keep their meaning).
   */
  readonly labels?: Readonly<Record<string, string>>;
  /** Choices for a parameter the schema types as any string (`dnssec` takes `true`, `1`, …): what the page offers. */
  readonly choices?: readonly string[];
  /** A number control for a parameter the schema types as a string of digits. */
  readonly range?: { readonly min: number; readonly max: number };
  /** Used only while another field has this value: otherwise hidden, disabled, and neither in the URL nor sent. */
  readonly onlyWith?: { readonly field: string; readonly value: string };
}

export interface ToolDefinition {
  readonly key:
    | 'dns'
    | 'whois'
    | 'ssl'
    | 'blacklist'
    | 'mail'
    | 'http'
    | 'ping'
    | 'traceroute'
    | 'mtr'
    | 'rpki'
    | 'abuse';
  readonly path: string;
  /** The `<h1>` and the start of the `<title>`. */
  readonly heading: string;
  /** One sentence for the page's lead, its meta description and the /tools list. */
  readonly summary: string;
  readonly api: string;
  readonly script: string;
  readonly submit: string;
  readonly fields: readonly FieldLayout[];
}

const probeHost: FieldLayout = { param: 'host', label: 'Host name or IP address', placeholder: 'example.com' };
const family: FieldLayout = {
  param: 'family',
  label: 'Address family',
  narrow: true,
  labels: { '': 'auto', 4: 'IPv4', 6: 'IPv6' },
};
const tcpPort = (initial: number): FieldLayout => ({
  param: 'port',
  label: 'TCP port',
  narrow: true,
  initial: String(initial),
  onlyWith: { field: 'protocol', value: 'tcp' },
});

/** In the order of the navigation. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    key: 'dns',
    path: '/tools/dns',
    heading: 'DNS lookup',
    summary:
      'The DNS records of one type for a host name, with their TTLs; with DNSSEC, their signatures and whether the resolver validated them.',
    api: '/api/v1/dns',
    script: 'tool-dns.js',
    submit: 'Look up',
    fields: [
      { param: 'host', label: 'Host name', placeholder: 'example.com', hint: true },
      { param: 'record_type', name: 'type', label: 'Record type', narrow: true, initial: 'A' },
      { param: 'dnssec', label: 'DNSSEC', narrow: true, choices: ['true'], labels: { '': 'off', true: 'on' } },
    ],
  },
  {
    key: 'whois',
    path: '/tools/whois',
    heading: 'WHOIS lookup',
    summary: 'Who registered a domain or holds an IP address block, from the registries’ WHOIS or RDAP servers.',
    api: '/api/v1/whois',
    script: 'tool-whois.js',
    submit: 'Look up',
    fields: [{ param: 'target', label: 'Domain or IP address', placeholder: 'example.com' }],
  },
  {
    key: 'ssl',
    path: '/tools/ssl',
    heading: 'SSL certificate check',
    summary:
      'The TLS certificate a host serves (on port 443, or the port you give, after STARTTLS for mail and FTP servers): whether it is valid and for how many more days, its problems, the chain as served and, when asked, the TLS versions it accepts.',
    api: '/api/v1/ssl',
    script: 'tool-ssl.js',
    submit: 'Check',
    fields: [
      { param: 'host', label: 'Host name, host:port, URL or IP address', placeholder: 'example.com' },
      { param: 'port', label: 'Port', narrow: true, range: { min: 1, max: 65535 } },
      {
        param: 'starttls',
        label: 'STARTTLS',
        narrow: true,
        labels: { '': 'none', smtp: 'SMTP', imap: 'IMAP', pop3: 'POP3', ftp: 'FTP' },
      },
      { param: 'protocols', label: 'TLS versions', narrow: true, labels: { '': 'not tested', true: 'test each' } },
    ],
  },
  {
    key: 'blacklist',
    path: '/tools/blacklist',
    heading: 'Blacklist check',
    summary: 'Whether an IPv4 address is listed on the DNS blacklists mail servers consult.',
    api: '/api/v1/blacklist',
    script: 'tool-blacklist.js',
    submit: 'Check',
    fields: [{ param: 'ip', label: 'IPv4 address', placeholder: '192.0.2.1' }],
  },
  {
    key: 'rpki',
    path: '/tools/rpki',
    heading: 'RPKI validity',
    summary:
      'Whether a prefix announced by an origin AS is RPKI valid, invalid or has no ROA (RFC 6811), with the VRPs that decide it.',
    api: '/api/v1/rpki',
    script: 'tool-rpki.js',
    submit: 'Validate',
    fields: [
      { param: 'prefix', label: 'Prefix', placeholder: '1.1.1.0/24', hint: true },
      { param: 'asn', label: 'Origin AS', placeholder: 'AS13335', narrow: true },
    ],
  },
  {
    key: 'abuse',
    path: '/tools/abuse',
    heading: 'Abuse contact',
    summary: 'Whom to write to about abuse from an IP address: the contact its registry publishes over RDAP.',
    api: '/api/v1/abuse',
    script: 'tool-abuse.js',
    submit: 'Look up',
    fields: [{ param: 'ip', label: 'IP address', placeholder: '193.0.6.139' }],
  },
  {
    key: 'mail',
    path: '/tools/mail',
    heading: 'Mail check',
    summary:
      'How a domain receives and authenticates mail: MX hosts with their addresses, SPF with its lookup count, DMARC, a DKIM key, MTA-STS and TLS-RPT, each with its problems.',
    api: '/api/v1/mail',
    script: 'tool-mail.js',
    submit: 'Check',
    fields: [
      { param: 'domain', label: 'Mail domain', placeholder: 'example.com' },
      {
        param: 'dkim_selector',
        name: 'selector',
        label: 'DKIM selector (optional)',
        placeholder: 'selector1',
        hint: true,
      },
    ],
  },
  {
    key: 'http',
    path: '/tools/http',
    heading: 'HTTP check',
    summary:
      'One request to a URL from this server: the status, HTTP version, each redirect, how long each phase took, the response headers and the TLS connection.',
    api: '/api/v1/http',
    script: 'tool-http.js',
    submit: 'Check',
    fields: [
      { param: 'url', label: 'URL', placeholder: 'https://example.com/', hint: true },
      { param: 'method', label: 'Method', narrow: true },
      { param: 'body_contains', label: 'Body contains (optional)', placeholder: 'Welcome' },
    ],
  },
  {
    key: 'ping',
    path: '/tools/ping',
    heading: 'Ping',
    summary:
      'Round-trip times to a host from this server, live, one a second: ICMP echo requests, or TCP connects to a port.',
    api: '/api/v1/ping',
    script: 'ping.js',
    submit: 'Ping',
    fields: [
      probeHost,
      { param: 'count', label: 'Requests', narrow: true },
      { param: 'protocol', label: 'Protocol', narrow: true, labels: { '': 'ICMP', tcp: 'TCP' } },
      tcpPort(TCP_PING_DEFAULT_PORT),
      family,
    ],
  },
  {
    key: 'traceroute',
    path: '/tools/traceroute',
    heading: 'Traceroute',
    summary: 'The routers between this server and a host, hop by hop as they answer, with their country and network.',
    api: '/api/v1/traceroute',
    script: 'traceroute.js',
    submit: 'Trace',
    fields: [
      probeHost,
      { param: 'protocol', label: 'Protocol', narrow: true, labels: { '': 'UDP', icmp: 'ICMP', tcp: 'TCP' } },
      tcpPort(TRACEROUTE_DEFAULT_TCP_PORT),
      family,
    ],
  },
  {
    key: 'mtr',
    path: '/tools/mtr',
    heading: 'MTR',
    summary:
      'Traceroute and ping in one: every hop between this server and a host with its loss and round-trip times, updated live round by round.',
    api: '/api/v1/mtr',
    script: 'mtr.js',
    submit: 'Run MTR',
    fields: [probeHost, { param: 'count', label: 'Rounds', narrow: true }, family],
  },
];
