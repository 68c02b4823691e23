// The DNS lookup's page: the records as a table, names wrapped at their dots, DNSSEC in words.

import { duration, startJsonTool } from './json-tool.js';
import { meshRunner } from './mesh-tool.js';
import { card, h, plural, table } from './tool.js';

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

startJsonTool(dnsResult, meshRunner('dns'));
