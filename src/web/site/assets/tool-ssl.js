// The SSL check's page: the verdict, each check in words, the chain, the TLS versions when asked.

import { problemList, shortDate, startJsonTool } from './json-tool.js';
import { meshRunner } from './mesh-tool.js';
import { card, facts, h, plural, table } from './tool.js';

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

startJsonTool(sslResult, meshRunner('ssl'));
