// The WHOIS lookup's page: registration, dates, holders and name servers as the registry gave them.

import { shortDate, startJsonTool } from './json-tool.js';
import { card, facts, h, table } from './tool.js';

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

startJsonTool(whoisResult);
