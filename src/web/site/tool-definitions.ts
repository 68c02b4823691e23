import { API_RECORD_TYPES } from '../../dns/schema.ts';
import { MTR_DEFAULT_COUNT, MTR_MAX_COUNT, MTR_MIN_COUNT } from '../../probes/mtr/schema.ts';
import { PING_DEFAULT_COUNT, PING_MAX_COUNT, PING_MIN_COUNT } from '../../probes/ping/schema.ts';
import { TCP_PING_DEFAULT_PORT } from '../../probes/ping/tcp-session.ts';
import { TRACEROUTE_DEFAULT_TCP_PORT } from '../../probes/traceroute/args.ts';
import { STARTTLS_PROTOCOLS } from '../../tls/starttls-replies.ts';

/** One control of a tool's form: its name in the page's URL and the API parameter it becomes. */
export interface ToolField {
  /** The page's query parameter (`/tools/dns?type=MX`). */
  readonly name: string;
  /** The API's query parameter it is sent as (`record_type=MX`). */
  readonly api: string;
  readonly label: string;
  readonly kind: 'text' | 'select' | 'number';
  readonly required: boolean;
  readonly placeholder?: string;
  readonly options?: readonly string[];
  /**
   * What a select shows for an option whose value is not itself words (`''` -> "none"). An option
   * whose value is `''` sends nothing: the API's default applies.
   */
  readonly optionLabels?: Readonly<Record<string, string>>;
  readonly defaultValue?: string;
  readonly min?: number;
  readonly max?: number;
  readonly hint?: string;
  /** A short control (record type, count) beside the main one. */
  readonly narrow?: boolean;
  /**
   * Used only while another field has a given value (a port only for protocol=tcp): otherwise the
   * field is hidden and disabled, and its value is neither in the page's URL nor sent to the API.
   */
  readonly onlyWith?: { readonly field: string; readonly value: string };
}

export interface ToolDefinition {
  readonly key: 'dns' | 'whois' | 'ssl' | 'blacklist' | 'mail' | 'http' | 'ping' | 'traceroute' | 'mtr';
  readonly path: string;
  /** The `<h1>` and the start of the `<title>`. */
  readonly heading: string;
  /** One sentence for the page's lead, its meta description and the /tools list. */
  readonly summary: string;
  readonly api: string;
  /** Server-Sent Events (ping, traceroute, MTR) rather than one JSON answer. */
  readonly stream: boolean;
  /** The page's module: json-tools.js runs the JSON tools, ping.js, traceroute.js and mtr.js the streams (all over tool.js). */
  readonly script: 'json-tools.js' | 'ping.js' | 'traceroute.js' | 'mtr.js';
  readonly submit: string;
  readonly fields: readonly ToolField[];
}

/** The tool pages, in the order of the navigation. Each is a view of one public API endpoint. */
/** The host of the probes (ping, traceroute, MTR): a name or an address, resolved by the API. */
const PROBE_HOST_FIELD: ToolField = {
  name: 'host',
  api: 'host',
  label: 'Host name or IP address',
  kind: 'text',
  required: true,
  placeholder: 'example.com',
};

/**
 * A short select whose first choice, `''`, sends nothing, so the API's default applies (and links
 * made before the option existed keep their meaning); `labels` are the words shown for each value.
 */
function optionalSelect(
  name: string,
  label: string,
  options: readonly string[],
  labels: Record<string, string>,
): ToolField {
  return {
    name,
    api: name,
    label,
    kind: 'select',
    required: false,
    options,
    optionLabels: labels,
    defaultValue: '',
    narrow: true,
  };
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    key: 'dns',
    path: '/tools/dns',
    heading: 'DNS lookup',
    summary:
      'The DNS records of one type for a host name, with their TTLs; with DNSSEC, their signatures and whether the resolver validated them.',
    api: '/api/v1/dns',
    stream: false,
    script: 'json-tools.js',
    submit: 'Look up',
    fields: [
      {
        name: 'host',
        api: 'host',
        label: 'Host name',
        kind: 'text',
        required: true,
        placeholder: 'example.com',
        hint: 'For a PTR record, give the IP address as the host name.',
      },
      {
        name: 'type',
        api: 'record_type',
        label: 'Record type',
        kind: 'select',
        required: true,
        options: API_RECORD_TYPES,
        defaultValue: 'A',
        narrow: true,
      },
      optionalSelect('dnssec', 'DNSSEC', ['', 'true'], { '': 'off', true: 'on' }),
    ],
  },
  {
    key: 'whois',
    path: '/tools/whois',
    heading: 'WHOIS lookup',
    summary: 'Who registered a domain or holds an IP address block, from the registries’ WHOIS or RDAP servers.',
    api: '/api/v1/whois',
    stream: false,
    script: 'json-tools.js',
    submit: 'Look up',
    fields: [
      {
        name: 'target',
        api: 'target',
        label: 'Domain or IP address',
        kind: 'text',
        required: true,
        placeholder: 'example.com',
      },
    ],
  },
  {
    key: 'ssl',
    path: '/tools/ssl',
    heading: 'SSL certificate check',
    summary:
      'The TLS certificate a host serves (on port 443, or the port you give, after STARTTLS for mail and FTP servers): whether it is valid and for how many more days, its problems, the chain as served and, when asked, the TLS versions it accepts.',
    api: '/api/v1/ssl',
    stream: false,
    script: 'json-tools.js',
    submit: 'Check',
    fields: [
      {
        name: 'host',
        api: 'host',
        label: 'Host name, host:port, URL or IP address',
        kind: 'text',
        required: true,
        placeholder: 'example.com',
      },
      {
        name: 'port',
        api: 'port',
        label: 'Port',
        kind: 'number',
        required: false,
        min: 1,
        max: 65535,
        narrow: true,
      },
      optionalSelect('starttls', 'STARTTLS', ['', ...STARTTLS_PROTOCOLS], {
        '': 'none',
        smtp: 'SMTP',
        imap: 'IMAP',
        pop3: 'POP3',
        ftp: 'FTP',
      }),
      optionalSelect('protocols', 'TLS versions', ['', 'true'], { '': 'not tested', true: 'test each' }),
    ],
  },
  {
    key: 'blacklist',
    path: '/tools/blacklist',
    heading: 'Blacklist check',
    summary: 'Whether an IPv4 address is listed on the DNS blacklists mail servers consult.',
    api: '/api/v1/blacklist',
    stream: false,
    script: 'json-tools.js',
    submit: 'Check',
    fields: [{ name: 'ip', api: 'ip', label: 'IPv4 address', kind: 'text', required: true, placeholder: '192.0.2.1' }],
  },
  {
    key: 'mail',
    path: '/tools/mail',
    heading: 'Mail check',
    summary:
      'How a domain receives and authenticates mail: MX hosts with their addresses, SPF with its lookup count, DMARC, a DKIM key, MTA-STS and TLS-RPT, each with its problems.',
    api: '/api/v1/mail',
    stream: false,
    script: 'json-tools.js',
    submit: 'Check',
    fields: [
      { name: 'domain', api: 'domain', label: 'Mail domain', kind: 'text', required: true, placeholder: 'example.com' },
      {
        name: 'selector',
        api: 'dkim_selector',
        label: 'DKIM selector (optional)',
        kind: 'text',
        required: false,
        placeholder: 'selector1',
        hint: 'The s= of a DKIM signature in a mail header; without one, DKIM is not checked.',
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
    stream: false,
    script: 'json-tools.js',
    submit: 'Check',
    fields: [
      {
        name: 'url',
        api: 'url',
        label: 'URL',
        kind: 'text',
        required: true,
        placeholder: 'https://example.com/',
        hint: 'An http:// or https:// URL; redirects are followed.',
      },
      {
        name: 'method',
        api: 'method',
        label: 'Method',
        kind: 'select',
        required: true,
        options: ['GET', 'HEAD'],
        defaultValue: 'GET',
        narrow: true,
      },
    ],
  },
  {
    key: 'ping',
    path: '/tools/ping',
    heading: 'Ping',
    summary:
      'Round-trip times to a host from this server, live, one a second: ICMP echo requests, or TCP connects to a port.',
    api: '/api/v1/ping',
    stream: true,
    script: 'ping.js',
    submit: 'Ping',
    fields: [
      PROBE_HOST_FIELD,
      {
        name: 'count',
        api: 'count',
        label: 'Requests',
        kind: 'number',
        required: false,
        defaultValue: String(PING_DEFAULT_COUNT),
        min: PING_MIN_COUNT,
        max: PING_MAX_COUNT,
        narrow: true,
      },
      optionalSelect('protocol', 'Protocol', ['', 'tcp'], { '': 'ICMP', tcp: 'TCP' }),
      {
        name: 'port',
        api: 'port',
        label: 'TCP port',
        kind: 'number',
        required: false,
        defaultValue: String(TCP_PING_DEFAULT_PORT),
        min: 1,
        max: 65535,
        narrow: true,
        onlyWith: { field: 'protocol', value: 'tcp' },
      },
    ],
  },
  {
    key: 'traceroute',
    path: '/tools/traceroute',
    heading: 'Traceroute',
    summary: 'The routers between this server and a host, hop by hop as they answer, with their country and network.',
    api: '/api/v1/traceroute',
    stream: true,
    script: 'traceroute.js',
    submit: 'Trace',
    fields: [
      PROBE_HOST_FIELD,
      optionalSelect('protocol', 'Protocol', ['', 'icmp', 'tcp'], { '': 'UDP', icmp: 'ICMP', tcp: 'TCP' }),
      {
        name: 'port',
        api: 'port',
        label: 'TCP port',
        kind: 'number',
        required: false,
        defaultValue: String(TRACEROUTE_DEFAULT_TCP_PORT),
        min: 1,
        max: 65535,
        narrow: true,
        onlyWith: { field: 'protocol', value: 'tcp' },
      },
    ],
  },
  {
    key: 'mtr',
    path: '/tools/mtr',
    heading: 'MTR',
    summary:
      'Traceroute and ping in one: every hop between this server and a host with its loss and round-trip times, updated live round by round.',
    api: '/api/v1/mtr',
    stream: true,
    script: 'mtr.js',
    submit: 'Run MTR',
    fields: [
      PROBE_HOST_FIELD,
      {
        name: 'count',
        api: 'count',
        label: 'Rounds',
        kind: 'number',
        required: false,
        defaultValue: String(MTR_DEFAULT_COUNT),
        min: MTR_MIN_COUNT,
        max: MTR_MAX_COUNT,
        narrow: true,
      },
    ],
  },
];
