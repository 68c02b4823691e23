// The mail check's page: one card per part (MX, SPF, DMARC, DKIM, MTA-STS, TLS-RPT), its state never in colour alone.

import { mono, problemList, startJsonTool } from './json-tool.js';
import { card, facts, h, plural, table, unknown } from './tool.js';

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

startJsonTool(mailResult);
