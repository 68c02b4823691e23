// The abuse contact page: the registry's contact for an address, and where it was found.
import { mono, shortDate, startJsonTool } from './json-tool.js';
import { card, facts, h } from './tool.js';

function emailLink(email) {
  // A plain address only: a registry's text must not add headers or recipients to the mail.
  return /^[^\s?&#,;]+@[^\s?&#,;]+$/.test(email) ? h('a', { href: `mailto:${email}` }, email) : email;
}

function abuseResult(answer) {
  const network = answer.network;
  return {
    parts: [
      card(
        answer.ip,
        facts([
          ['E-mail', emailLink(answer.email)],
          ['Name', answer.name],
          ['Handle', mono(answer.handle)],
          ['Registry', answer.registry],
          ['Network', mono(network.range)],
          ['Network handle', mono(network.handle)],
          ['Network name', network.name],
          ['RDAP answer', h('a', { href: answer.source, class: 'mono' }, answer.source)],
        ]),
        h(
          'p',
          { class: 'hint' },
          `Asked ${shortDate(answer.queried_at)}${answer.cached ? ' (from the service’s cache)' : ''}.`,
        ),
      ),
    ],
    status: `Abuse contact of ${answer.ip}: ${answer.email} (${answer.registry}).`,
  };
}

startJsonTool(abuseResult);
