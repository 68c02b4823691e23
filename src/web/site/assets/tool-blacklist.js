import { startJsonTool } from './json-tool.js';
import { card, h, plural, table } from './tool.js';

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

startJsonTool(blacklistResult);
