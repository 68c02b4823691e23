// The HTTP check's page: status, redirects, a waterfall of the phases, headers, TLS.

import { mono, shortDate, startJsonTool } from './json-tool.js';
import { meshRunner } from './mesh-tool.js';
import { card, facts, h, plural, table } from './tool.js';

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
function milliseconds(value) {
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
      ...(answer.body_found === undefined
        ? []
        : [
            [
              'The text asked for',
              h(
                'span',
                { class: `badge ${answer.body_found ? 'good' : 'bad'}` },
                answer.body_found ? 'found' : 'not found',
              ),
            ],
          ]),
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

startJsonTool(httpResult, meshRunner('http'));
