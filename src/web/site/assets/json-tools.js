// The tools that answer with one JSON document: DNS, WHOIS, SSL, blacklist, mail and HTTP. Each renderer turns
// the API's answer into cards and tables, showing what the API gives and nothing it does not.
import {
  apiCallCard,
  apiErrorText,
  card,
  errorAlert,
  facts,
  getJson,
  h,
  plural,
  say,
  startTool,
  table,
  unknown,
} from './tool.js';

/** A date of the API (`YYYY-MM-DD` or ISO 8601) as written, without the time when it is midnight UTC. */
export function shortDate(value) {
  if (!value) return null;
  return value
    .replace(/T00:00:00(\.000)?Z$/, '')
    .replace('T', ' ')
    .replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** Seconds in words for a TTL: 3600 -> "1 h", 90 -> "1 min 30 s". */
export function duration(seconds) {
  const units = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const parts = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ') || '0 s';
}

/** `YYYYMMDDHHmmSS` (an RRSIG's times) as `YYYY-MM-DD HH:mm UTC`. */
function signatureTime(value) {
  const m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)\d\d$/.exec(value ?? '');
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]} UTC` : value;
}

/** An RRSIG's value in words above the value as the API gives it. */
function rrsigValue(value) {
  const [covered, algorithm, , , expiration, inception, keyTag, signer] = value.split(' ');
  return [
    h(
      'span',
      { class: 'rrsig-summary' },
      `Signs ${covered}, by ${signer} (key ${keyTag}, algorithm ${algorithm}), valid ${signatureTime(inception)} to ${signatureTime(expiration)}`,
    ),
    h('span', { class: 'mono rrsig-raw' }, value),
  ];
}

/** With dnssec=true: the resolver's AD flag in words, with a symbol (never colour alone). */
function dnssecState(answer) {
  if (answer.ad === undefined) return null;
  return answer.ad
    ? h(
        'p',
        { class: 'part-state good dnssec-state' },
        h('span', { class: 'symbol', 'aria-hidden': 'true' }, '✓'),
        ' Authenticated (AD flag set): the resolver validated this answer with DNSSEC.',
      )
    : h(
        'p',
        { class: 'part-state warn dnssec-state' },
        h('span', { class: 'symbol', 'aria-hidden': 'true' }, '!'),
        ' Not authenticated (AD flag not set): the answer is unsigned, or the resolver does not validate DNSSEC.',
      );
}

/** A host name as the API writes it (letters, digits, -, _, a leading *), not an IPv4 address. */
const HOST_NAME = /^(?:[*\w-]+\.)+[\w-]+\.?$/;
const IPV4 = /^[\d.]+$/;

/**
 * A DNS name that wraps only after its dots, never inside a label: each label (with its dot) is
 * one span kept whole (site.css), with a line-break opportunity (<wbr>) after each dot. Hyphens
 * would otherwise be break points too, and `overflow-wrap: anywhere` would cut anywhere.
 */
function dnsName(name) {
  const labels = name.split(/(?<=\.)/);
  return h(
    'span',
    { class: 'dns-name' },
    ...labels.flatMap((label, index) => [
      h('span', { class: 'dns-label' }, label),
      index < labels.length - 1 ? h('wbr') : null,
    ]),
  );
}

/** A record's value with each host name in it (NS, CNAME, MX, SRV and SOA targets...) as a dnsName. */
function recordValue(value) {
  return value
    .split(' ')
    .flatMap((token, index) => [
      index > 0 ? ' ' : null,
      HOST_NAME.test(token) && !IPV4.test(token) ? dnsName(token) : token,
    ]);
}

function dnsResult(answer) {
  const records = answer.records ?? [];
  const signatures = records.filter((record) => record.record_type === 'RRSIG').length;
  const subject = `${answer.host} ${answer.record_type}`;
  const parts = [dnssecState(answer)];
  if (answer.status === 'NXDOMAIN') {
    parts.push(
      h('p', { class: 'alert warn' }, `${answer.host} does not exist (NXDOMAIN): there are no records to show.`),
    );
  } else if (records.length === 0) {
    parts.push(h('p', { class: 'alert warn' }, `${answer.host} exists but has no ${answer.record_type} records.`));
  }
  if (records.length > 0) {
    const rows = records.map((record) =>
      h(
        'tr',
        { 'data-type': record.record_type },
        h('td', { class: 'mono' }, dnsName(record.name)),
        h('td', {}, record.record_type),
        h(
          'td',
          { class: 'num' },
          String(record.ttl),
          h('span', { class: 'hint-inline' }, ` (${duration(record.ttl)})`),
        ),
        record.record_type === 'RRSIG'
          ? h('td', { class: 'rrsig' }, rrsigValue(record.value))
          : h('td', { class: 'mono' }, record.record_type === 'TXT' ? record.value : recordValue(record.value)),
      ),
    );
    parts.push(
      table(`${subject} records`, ['Name', 'Type', { text: 'TTL (s)', class: 'num' }, 'Value'], rows, {
        class: 'records',
      }),
    );
  }
  const counted =
    signatures > 0
      ? `${plural(records.length - signatures, 'record')} and ${plural(signatures, 'signature')}`
      : plural(records.length, 'record');
  const cached = answer.cached ? ', from the service’s cache (TTLs counted down)' : '';
  const summary = `${counted} for ${subject}${cached}.`;
  const result = card(
    subject,
    h('p', { class: 'hint' }, `${counted} for `, dnsName(answer.host), ` ${answer.record_type}${cached}.`),
    ...parts,
  );
  result.querySelector('h2')?.replaceChildren(dnsName(answer.host), ` ${answer.record_type}`);
  return { parts: [result], status: summary };
}

function nameServers(list) {
  return list?.length ? h('ul', { class: 'plain' }, ...list.map((server) => h('li', { class: 'mono' }, server))) : null;
}

function whoisResult(answer) {
  const p = answer.parsed ?? {};
  const parts = [];
  if (p.registered === false) {
    parts.push(
      h('p', { class: 'alert warn' }, `${answer.target} is not registered: the registry has no record of it.`),
    );
  }
  const statuses = p.status?.length
    ? h('ul', { class: 'badges' }, ...p.status.map((status) => h('li', { class: 'badge' }, status)))
    : null;
  const entries =
    answer.target_type === 'ip'
      ? [
          ['Network name', p.network_name],
          ['Organisation', p.organisation],
          ['Range', p.range],
          ['CIDR', p.cidr?.length ? p.cidr.join(', ') : null],
          ['Country', p.country],
          ['Registry', p.registry?.toUpperCase()],
          ['Last change', p.updated_date],
        ]
      : [
          ['Domain', p.domain_name],
          ['Registrar', p.registrar],
          ['Registered on', p.creation_date],
          ['Expires on', p.expiration_date],
          ['Last change', p.updated_date],
          ['Name servers', nameServers(p.name_servers)],
          ['Status', statuses],
          ['DNSSEC', p.dnssec],
        ];
  parts.push(facts(entries));
  const source = `Source: ${answer.source === 'rdap' ? 'RDAP' : 'WHOIS'}, asked ${shortDate(answer.queried_at)}${answer.cached ? ' (from the service’s cache)' : ''}.`;
  parts.push(h('p', { class: 'hint' }, source));
  const servers = (answer.servers ?? []).map((step) =>
    h(
      'tr',
      {},
      h('td', {}, step.protocol.toUpperCase()),
      h('td', { class: 'mono' }, step.server),
      h('td', { class: 'mono' }, step.query ?? ''),
      h(
        'td',
        {},
        step.error
          ? h('span', { class: 'badge bad' }, step.error)
          : [step.referral ? `answered, referred to ${step.referral}` : 'answered', step.note ? `; ${step.note}` : ''],
      ),
      h('td', { class: 'num' }, `${step.duration_ms} ms`),
    ),
  );
  const chain = h(
    'details',
    {},
    h('summary', {}, `Servers asked (${servers.length})`),
    table('Servers asked', ['Protocol', 'Server', 'Query', 'Result', { text: 'Time', class: 'num' }], servers),
  );
  const raw = h(
    'details',
    {},
    h('summary', {}, answer.source === 'rdap' ? 'Raw RDAP answer' : 'Raw WHOIS answer'),
    h('pre', { class: 'raw', tabindex: 0 }, answer.raw),
  );
  return { parts: [card(answer.target, ...parts, chain, raw)], status: `WHOIS of ${answer.target} shown.` };
}

function sslVerdict(answer) {
  const days = answer.days_remaining;
  const until = shortDate(answer.valid_to);
  if (!answer.valid) {
    const reasons = (answer.validation_errors ?? []).map((error) => error.message).join('; ');
    const expiry =
      days < 0
        ? `It expired ${plural(-days, 'day')} ago (${until}).`
        : `It expires on ${until}, in ${plural(days, 'day')}.`;
    return {
      kind: 'bad',
      text: `Not valid: ${reasons || answer.validation_error || 'the certificate failed verification'}.`,
      detail: expiry,
    };
  }
  if (days < 30)
    return {
      kind: 'warn',
      text: `Valid, but expires soon: ${plural(days, 'day')} left.`,
      detail: `Valid until ${until}.`,
    };
  return { kind: 'good', text: `Valid: ${plural(days, 'day')} left.`, detail: `Valid until ${until}.` };
}

/** One yes/no fact of a certificate check, in words with a symbol (never colour alone). */
function check(kind, text) {
  const symbol = { good: '✓', bad: '✗', warn: '!', none: '–' }[kind];
  return h(
    'li',
    { class: `part-state ${kind}` },
    h('span', { class: 'symbol', 'aria-hidden': 'true' }, symbol),
    ` ${text}`,
  );
}

function sslChecks(answer) {
  let scts;
  if (answer.sct_count === null) scts = check('bad', 'The Certificate Transparency (SCT) extension is malformed');
  else if (answer.sct_count > 0)
    scts = check('good', `${plural(answer.sct_count, 'SCT')} embedded (Certificate Transparency)`);
  else scts = check('none', 'No SCTs embedded in the certificate');
  return h(
    'ul',
    { class: 'checks', 'aria-label': 'Checks' },
    answer.hostname_match ? check('good', `Names ${answer.host}`) : check('bad', `Does not name ${answer.host}`),
    answer.chain_complete
      ? check('good', 'Chain complete: the certificates served lead to a trusted root')
      : check('bad', 'Chain incomplete: the certificates served do not lead to a trusted root'),
    answer.ocsp_stapled ? check('good', 'OCSP response stapled') : check('none', 'No OCSP response stapled'),
    scts,
  );
}

const OUTDATED_VERSIONS = ['TLSv1', 'TLSv1.1'];

/** A TLS version's result: accepting TLS 1.0 or 1.1 is the problem (RFC 8996), not refusing it. */
function versionBadge(version, accepted) {
  if (accepted === null) return h('span', { class: 'badge' }, '? unknown: no answer');
  const outdated = OUTDATED_VERSIONS.includes(version);
  if (accepted)
    return h(
      'span',
      { class: `badge ${outdated ? 'bad' : 'good'}` },
      outdated ? '✗ accepted (outdated)' : '✓ accepted',
    );
  return h(
    'span',
    { class: `badge ${outdated ? 'good' : version === 'TLSv1.3' ? 'warn' : ''}`.trim() },
    outdated ? '✓ refused' : '– refused',
  );
}

function protocolsCard(protocols) {
  const rows = Object.entries(protocols).map(([version, accepted]) =>
    h(
      'tr',
      { 'data-version': version },
      h('td', {}, version.replace('TLSv', 'TLS ')),
      h('td', {}, versionBadge(version, accepted)),
    ),
  );
  return card(
    'TLS versions',
    h('p', { class: 'hint' }, 'Each version offered alone, on a connection of its own.'),
    table('TLS versions accepted', ['Version', 'Result'], rows, { class: 'protocols' }),
  );
}

function sslResult(answer) {
  const verdict = sslVerdict(answer);
  const key = [answer.key_type, answer.key_curve, answer.bits ? `${answer.bits} bits` : null]
    .filter(Boolean)
    .join(', ');
  const names = answer.alt_names?.length
    ? h('ul', { class: 'plain' }, ...answer.alt_names.map((name) => h('li', { class: 'mono' }, name)))
    : null;
  const certificate = card(
    `Certificate of ${answer.host}`,
    h('p', { class: `verdict ${verdict.kind}` }, verdict.text),
    h('p', {}, verdict.detail),
    problemList(answer.problems ?? []),
    sslChecks(answer),
    facts([
      ['Subject', answer.subject],
      ['Alternative names', names],
      ['Issuer', [answer.issuer, answer.issuer_org ? ` (${answer.issuer_org})` : ''].join('')],
      ['Valid from', shortDate(answer.valid_from)],
      ['Valid to', shortDate(answer.valid_to)],
      ['Key', key],
      ['Signature', answer.signature_algorithm],
      ['Protocol', [answer.protocol, answer.cipher].filter(Boolean).join(', ')],
      [
        'Server',
        `${answer.address} port ${answer.port}${answer.starttls ? `, after STARTTLS (${answer.starttls.toUpperCase()})` : ''}`,
      ],
      ['SNI', answer.sni ?? 'none sent (an IP address)'],
      ['Serial', h('span', { class: 'mono' }, answer.serial)],
      ['SHA-256', h('span', { class: 'mono' }, answer.fingerprint)],
    ]),
  );
  const chainRows = (answer.chain ?? []).map((link, index) =>
    h(
      'tr',
      {},
      h('td', { class: 'num' }, index === 0 ? '1 (this server’s)' : String(index + 1)),
      h('td', {}, link.subject),
      h('td', {}, link.issuer),
      h('td', {}, [link.key_type, link.bits ? `${link.bits} bits` : null].filter(Boolean).join(', ')),
      h('td', {}, link.signature_algorithm ?? ''),
      h('td', {}, shortDate(link.valid_to)),
    ),
  );
  const chain = card(
    'Chain as served',
    h(
      'p',
      { class: 'hint' },
      `${plural(chainRows.length, 'certificate')} sent by the server, its own first; a root it did not send is not shown.`,
    ),
    table(
      'Certificate chain',
      [{ text: '#', class: 'num' }, 'Subject', 'Issuer', 'Key', 'Signature', 'Valid to'],
      chainRows,
      { class: 'chain' },
    ),
  );
  return {
    parts: [certificate, chain, answer.protocols ? protocolsCard(answer.protocols) : null].filter(Boolean),
    status: verdict.text,
  };
}

const LIST_STATUS = {
  listed: ['bad', 'listed'],
  not_listed: ['good', 'not listed'],
  error: ['warn', 'error'],
};

function blacklistResult(answer) {
  const { total, listed, errors = 0 } = answer;
  let verdict;
  if (listed > 0)
    verdict = {
      kind: 'bad',
      text: `Listed on ${listed} of ${plural(total, 'list')}${errors > 0 ? `; ${errors} could not answer` : ''}.`,
    };
  else if (errors > 0)
    verdict = {
      kind: 'warn',
      text: `Not listed on ${total - errors} of ${plural(total, 'list')}; ${errors} could not answer, so they say nothing either way.`,
    };
  else verdict = { kind: 'good', text: `Not listed on any of the ${plural(total, 'list')}.` };
  const rows = (answer.results ?? []).map((result) => {
    const status = result.status ?? (result.listed ? 'listed' : 'not_listed');
    const [kind, word] = LIST_STATUS[status] ?? ['warn', status];
    const details = [
      result.return_codes?.length ? `Returned ${result.return_codes.join(', ')}.` : '',
      result.reason ? ` ${result.reason}` : '',
      result.error ? ` ${result.error}` : '',
    ]
      .join('')
      .trim();
    return h(
      'tr',
      { 'data-status': status },
      h('td', {}, result.name),
      h('td', { class: 'mono' }, result.zone),
      h('td', {}, h('span', { class: `badge ${kind}` }, word)),
      h('td', {}, details),
    );
  });
  return {
    parts: [
      card(
        answer.ip,
        h('p', { class: `verdict ${verdict.kind}` }, verdict.text),
        answer.cached ? h('p', { class: 'hint' }, 'From the service’s cache.') : null,
        table(`Blacklists for ${answer.ip}`, ['List', 'Zone', 'Result', 'Details'], rows),
      ),
    ],
    status: verdict.text,
  };
}

/**
 * The state of one part of a mail check, in words and a symbol (never colour alone): found without
 * problems, its problems, or not published at all.
 */
function partState(found, problems) {
  if (problems.length > 0)
    return {
      kind: 'bad',
      symbol: '✗',
      text: `${found ? 'Found' : 'Missing'}, ${plural(problems.length, 'problem')}`,
    };
  if (found) return { kind: 'good', symbol: '✓', text: 'Found, no problems' };
  return { kind: 'warn', symbol: '–', text: 'Not published' };
}

function stateLine(state) {
  return h(
    'p',
    { class: `part-state ${state.kind}` },
    h('span', { class: 'symbol', 'aria-hidden': 'true' }, state.symbol),
    ` ${state.text}`,
  );
}

function problemList(problems) {
  return problems.length
    ? h('ul', { class: 'problems', 'aria-label': 'Problems' }, ...problems.map((problem) => h('li', {}, problem)))
    : null;
}

const mono = (text) => (text ? h('span', { class: 'mono' }, text) : null);
const uriList = (uris) =>
  uris?.length ? h('ul', { class: 'plain' }, ...uris.map((uri) => h('li', { class: 'mono' }, uri))) : null;
/** A tag the record leaves out, with the value receivers use then. */
const unset = (fallback) => h('span', { class: 'unknown' }, `not set (receivers use ${fallback})`);

/** One part's card: its state, its problems, then what it found. */
function mailPart(title, section, ...content) {
  const state = partState(section.found, section.problems ?? []);
  return {
    state,
    card: card(
      title,
      stateLine(state),
      problemList(section.problems ?? []),
      section.found || section.record ? content : null,
    ),
  };
}

const SPF_QUALIFIERS = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };

function mxPart(mx) {
  const rows = mx.records.map((record) =>
    h(
      'tr',
      {},
      h('td', { class: 'num' }, String(record.preference)),
      h('td', { class: 'mono' }, record.host),
      h('td', { class: 'mono' }, record.a.length ? record.a.join(', ') : unknown('none')),
      h('td', { class: 'mono' }, record.aaaa.length ? record.aaaa.join(', ') : unknown('none')),
    ),
  );
  return mailPart(
    'MX',
    mx,
    table('MX records', [{ text: 'Preference', class: 'num' }, 'Host', 'IPv4', 'IPv6'], rows, { class: 'mx' }),
  );
}

function spfPart(spf) {
  const lookups = h(
    'span',
    { class: spf.lookups > 10 ? 'over' : null },
    `${spf.lookups} of 10`,
    spf.lookups > 10 ? ' (over the limit)' : '',
  );
  const voids = `${spf.void_lookups} of 2${spf.void_lookups > 2 ? ' (over the limit)' : ''}`;
  const rows = spf.mechanisms.map((mechanism) =>
    h(
      'tr',
      {},
      h('td', {}, `${mechanism.qualifier} ${SPF_QUALIFIERS[mechanism.qualifier] ?? ''}`),
      h('td', { class: 'mono' }, mechanism.name),
      h('td', { class: 'mono' }, mechanism.value ?? ''),
    ),
  );
  const modifiers = spf.modifiers.length
    ? h(
        'ul',
        { class: 'plain' },
        ...spf.modifiers.map((modifier) => h('li', { class: 'mono' }, `${modifier.name}=${modifier.value}`)),
      )
    : null;
  return mailPart(
    'SPF',
    spf,
    facts([
      ['Record', mono(spf.record)],
      ['DNS lookups', lookups],
      ['Void lookups', voids],
      ...(modifiers ? [['Modifiers', modifiers]] : []),
    ]),
    rows.length ? table('SPF mechanisms', ['Qualifier', 'Mechanism', 'Value'], rows, { class: 'spf' }) : null,
  );
}

function dmarcPart(dmarc) {
  return mailPart(
    'DMARC',
    dmarc,
    facts([
      ['Record', mono(dmarc.record)],
      ['Policy (p)', dmarc.p],
      ['Subdomains (sp)', dmarc.sp ?? unset('p')],
      ['Applies to (pct)', dmarc.pct === null ? unset('100%') : `${dmarc.pct}%`],
      ['Aggregate reports (rua)', uriList(dmarc.rua) ?? unknown('none')],
      ['Failure reports (ruf)', uriList(dmarc.ruf) ?? unknown('none')],
      ['DKIM alignment (adkim)', dmarc.adkim ?? unset('r')],
      ['SPF alignment (aspf)', dmarc.aspf ?? unset('r')],
    ]),
  );
}

function dkimPart(dkim) {
  if (!dkim) {
    return {
      state: { kind: 'none', symbol: '', text: 'not checked' },
      card: card(
        'DKIM',
        h(
          'p',
          { class: 'part-state none' },
          'Not checked: give a DKIM selector (the s= of a signature) to check its key.',
        ),
      ),
    };
  }
  return mailPart(
    `DKIM (${dkim.selector})`,
    dkim,
    facts([
      ['Name', mono(dkim.name)],
      ['Record', mono(dkim.record)],
      ['Key type', dkim.key_type],
      ['Key size', dkim.bits === null ? null : `${dkim.bits} bits`],
    ]),
  );
}

function mtaStsPart(sts) {
  return mailPart(
    'MTA-STS',
    sts,
    facts([
      ['Record', mono(sts.record)],
      ['Policy id', mono(sts.id)],
    ]),
    h('p', { class: 'hint' }, 'The policy file itself (over HTTPS) is not fetched.'),
  );
}

function tlsRptPart(rpt) {
  return mailPart(
    'TLS-RPT',
    rpt,
    facts([
      ['Record', mono(rpt.record)],
      ['Reports to (rua)', uriList(rpt.rua)],
    ]),
  );
}

function mailResult(answer) {
  const parts = [
    ['MX', mxPart(answer.mx)],
    ['SPF', spfPart(answer.spf)],
    ['DMARC', dmarcPart(answer.dmarc)],
    ['DKIM', dkimPart(answer.dkim)],
    ['MTA-STS', mtaStsPart(answer.mta_sts)],
    ['TLS-RPT', tlsRptPart(answer.tls_rpt)],
  ];
  const problems = parts.reduce((sum, [, part]) => sum + (part.state.kind === 'bad' ? 1 : 0), 0);
  let verdict;
  if (!answer.exists) verdict = { kind: 'bad', text: `${answer.domain} does not exist (NXDOMAIN).` };
  else if (problems > 0)
    verdict = {
      kind: 'bad',
      text: `${plural(problems, 'part')} of ${answer.domain} ${problems === 1 ? 'has' : 'have'} problems.`,
    };
  else verdict = { kind: 'good', text: `No problems found for ${answer.domain}.` };
  const overview = h(
    'ul',
    { class: 'part-overview', 'aria-label': 'Summary' },
    ...parts.map(([name, part]) =>
      h(
        'li',
        { class: `part-state ${part.state.kind}` },
        h('strong', {}, name),
        h(
          'span',
          {},
          part.state.symbol ? h('span', { class: 'symbol', 'aria-hidden': 'true' }, part.state.symbol) : null,
          ` ${part.state.text.replace(/^Found, no problems$/, 'OK')}`,
        ),
      ),
    ),
  );
  const summary = card(
    `Mail of ${answer.domain}`,
    h('p', { class: `verdict ${verdict.kind}` }, verdict.text),
    problemList(answer.problems ?? []),
    overview,
  );
  return {
    parts: [summary, h('div', { class: 'grid mail-parts' }, ...parts.map(([, part]) => part.card))],
    status: verdict.text,
  };
}

/** Reason phrases of the statuses a check usually meets (RFC 9110); others show the number alone. */
const REASONS = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  206: 'Partial Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
const statusText = (status) => `${status}${REASONS[status] ? ` ${REASONS[status]}` : ''}`;
const statusKind = (status) => (status < 300 ? 'good' : status < 400 ? 'warn' : 'bad');

/** Milliseconds as the API gives them, to a useful precision: 0.42 ms, 12.3 ms, 1234 ms. */
export function milliseconds(value) {
  if (value >= 100) return `${Math.round(value)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

function bytes(count) {
  if (count < 1024) return plural(count, 'byte');
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB (${count} bytes)`;
  return `${(count / 1024 / 1024).toFixed(2)} MiB (${count} bytes)`;
}

const PHASES = [
  ['redirect', 'Redirects', 'every request before the final one'],
  ['dns', 'DNS', 'resolving the host'],
  ['tcp', 'TCP connect', 'opening the connection'],
  ['tls', 'TLS handshake', 'negotiating TLS'],
  ['first_byte', 'Waiting', 'sending the request, waiting for the headers'],
  ['download', 'Download', 'reading the body'],
];

/**
 * The phases as a waterfall: one row each, its bar starting where the phase before it ended, on a
 * scale of the whole check. Plain elements; the bars' place and length are set through CSSOM (the
 * CSP forbids style attributes, not element.style).
 */
function waterfall(timings) {
  const phases = PHASES.filter(
    ([key]) => typeof timings[key] === 'number' && !(key === 'redirect' && timings[key] === 0),
  );
  const sum = phases.reduce((total, [key]) => total + timings[key], 0);
  const scale = Math.max(sum, timings.total, 0.01);
  let start = 0;
  const rows = phases.map(([key, name, what]) => {
    const value = timings[key];
    const bar = h('span', { class: `bar ${key}` });
    bar.style.marginLeft = `${(start / scale) * 100}%`;
    bar.style.width = `${(value / scale) * 100}%`;
    start += value;
    return h(
      'li',
      { 'data-phase': key },
      h('span', { class: 'phase' }, name, h('span', { class: 'hint-inline' }, ` ${what}`)),
      h('span', { class: 'track', 'aria-hidden': 'true' }, bar),
      h('span', { class: 'ms' }, milliseconds(value)),
    );
  });
  rows.push(
    h(
      'li',
      { class: 'total' },
      h('span', { class: 'phase' }, 'Total'),
      h('span', { class: 'track', 'aria-hidden': 'true' }),
      h('span', { class: 'ms' }, milliseconds(timings.total)),
    ),
  );
  return h('ol', { class: 'waterfall', 'aria-label': 'Time per phase of the final request' }, ...rows);
}

function redirectChain(answer) {
  if (answer.redirects.length === 0) return h('p', { class: 'hint' }, 'No redirects: the URL asked answered itself.');
  const rows = answer.redirects.map((step, index) =>
    h(
      'tr',
      {},
      h('td', { class: 'num' }, String(index + 1)),
      h('td', {}, h('span', { class: `badge ${statusKind(step.status)}` }, statusText(step.status))),
      h('td', { class: 'mono' }, step.url),
      h('td', { class: 'mono' }, step.location),
    ),
  );
  rows.push(
    h(
      'tr',
      { class: 'final' },
      h('td', { class: 'num' }, String(answer.redirects.length + 1)),
      h('td', {}, h('span', { class: `badge ${statusKind(answer.status)}` }, statusText(answer.status))),
      h('td', { class: 'mono' }, answer.url),
      h('td', {}, 'final answer'),
    ),
  );
  return table('Redirect chain', [{ text: '#', class: 'num' }, 'Status', 'URL', 'Location'], rows, {
    class: 'redirects',
  });
}

function tlsCard(answer) {
  const tls = answer.tls;
  if (!tls) return card('TLS', h('p', { class: 'hint' }, 'None: the final URL is http://, so nothing was encrypted.'));
  const host = new URL(answer.url).host;
  let verdict;
  if (!tls.valid)
    verdict = {
      kind: 'bad',
      text: `✗ Certificate not valid: ${(tls.validation_errors ?? []).map((error) => error.message).join('; ') || tls.validation_error || 'it failed verification'}`,
    };
  else if (tls.days_remaining !== null && tls.days_remaining < 30)
    verdict = { kind: 'warn', text: `! Certificate valid, but expires in ${plural(tls.days_remaining, 'day')}` };
  else verdict = { kind: 'good', text: '✓ Certificate valid' };
  return card(
    'TLS',
    h('p', { class: `part-state ${verdict.kind}` }, verdict.text),
    facts([
      ['Protocol', tls.protocol],
      ['Cipher', mono(tls.cipher)],
      ['Subject', tls.subject],
      ['Issuer', tls.issuer],
      ['Valid to', shortDate(tls.valid_to)],
      ['Days left', tls.days_remaining === null ? null : String(tls.days_remaining)],
    ]),
    h(
      'p',
      {},
      h(
        'a',
        { href: `/tools/ssl?host=${encodeURIComponent(host)}` },
        `The whole certificate and its chain: SSL check of ${host}`,
      ),
    ),
  );
}

function httpResult(answer) {
  const kind = statusKind(answer.status);
  const verdict = `${statusText(answer.status)} over HTTP/${answer.http_version} in ${milliseconds(answer.timings.total)}${answer.redirects.length ? `, after ${plural(answer.redirects.length, 'redirect')}` : ''}.`;
  const headerRows = Object.entries(answer.headers).map(([name, value]) =>
    h('tr', {}, h('td', { class: 'mono' }, name), h('td', { class: 'mono' }, value)),
  );
  const response = card(
    'Response',
    h('p', { class: `verdict ${kind}` }, verdict),
    facts([
      ['Final URL', mono(answer.url)],
      ['Address', mono(answer.address)],
      ['Method', answer.method],
      ['HTTP version', answer.http_version],
      [
        'Body',
        answer.method === 'HEAD'
          ? 'not asked for (HEAD)'
          : `${bytes(answer.body_bytes)}${answer.body_truncated ? ', cut at the limit: the body is longer' : ''}`,
      ],
    ]),
  );
  return {
    parts: [
      h('div', { class: 'grid' }, response, tlsCard(answer)),
      card('Redirect chain', redirectChain(answer)),
      card('Timings', waterfall(answer.timings)),
      card(
        'Headers',
        headerRows.length
          ? table('Response headers', ['Header', 'Value'], headerRows, { class: 'headers' })
          : h('p', { class: 'hint' }, 'None of the headers this check reports were sent.'),
      ),
    ],
    status: verdict,
  };
}

const RENDERERS = {
  dns: dnsResult,
  whois: whoisResult,
  ssl: sslResult,
  blacklist: blacklistResult,
  mail: mailResult,
  http: httpResult,
};

async function runJsonTool({ form, apiPath, result, status, signal }) {
  // The space the answer will take, kept once it shows (see .tool-result.reserved in site.css).
  result.classList.add('reserved');
  say(status, 'Asking the API…', true);
  const answer = await getJson(apiPath, signal);
  if (signal.aborted) return;
  if (answer.ok) {
    const shown = RENDERERS[form.dataset.tool](answer.body);
    result.replaceChildren(...shown.parts, apiCallCard(apiPath, answer.body));
    say(status, shown.status);
  } else {
    const text = apiErrorText(answer.status, answer.body);
    result.replaceChildren(errorAlert(text), apiCallCard(apiPath, answer.body));
    say(status, '');
  }
}

startTool(runJsonTool);
