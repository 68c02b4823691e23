// /tools/resolver: the resolver test and the port check, run from the visitor's browser over the
// public API. The token is made here (crypto.getRandomValues): it is the test's only secret, and
// the server keeps nothing until a resolver asks for one of its names.
const card = document.querySelector('[data-resolver-zone]');
const zone = card?.getAttribute('data-resolver-zone') ?? '';
const origin = card?.getAttribute('data-origin') ?? location.origin;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** 24 characters, 120 random bits. */
function makeToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (byte) => BASE32[byte & 31]).join('');
}

/** Resolves when the request for the name ends, whatever its outcome (an opaque answer, or no name). */
function visit(name, signal) {
  const port = location.port ? `:${location.port}` : '';
  return fetch(`${location.protocol}//${name}.${zone}${port}/resolver-beacon`, {
    mode: 'no-cors',
    cache: 'no-store',
    signal,
  }).catch(() => undefined);
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function unique(values) {
  return [...new Set(values.filter((value) => value))];
}

function listed(values) {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} and ${values.at(-1)}`;
}

/** "Your DNS queries are answered by 2 resolvers of Cloudflare in Frankfurt am Main." */
function describe(answer) {
  const { resolvers, dnssec } = answer;
  const count = `${resolvers.length} resolver${resolvers.length === 1 ? '' : 's'}`;
  const providers = unique(resolvers.map((r) => r.provider));
  const places = unique(resolvers.map((r) => r.city ?? r.country));
  const who = providers.length > 0 ? ` of ${listed(providers)}` : ` (${listed(resolvers.map((r) => r.ip))})`;
  const where = places.length > 0 ? ` in ${listed(places)}` : '';
  const ecs = resolvers.some((r) => r.ecs)
    ? 'They tell name servers your subnet (ECS).'
    : 'None of them tells name servers your subnet (no ECS).';
  const validation =
    dnssec.validating === true
      ? 'They validate DNSSEC: the name with broken signatures did not resolve.'
      : dnssec.validating === false
        ? 'They do not validate DNSSEC: the name with broken signatures resolved.'
        : !dnssec.ds_published
          ? "Whether they validate DNSSEC cannot be told: this service's test zone has no DS record in its parent zone yet."
          : 'Whether they validate DNSSEC could not be seen: the browser reached neither test name.';
  return `Your DNS queries are answered by ${count}${who}${where}. ${ecs} ${validation}`;
}

function resolverTable(resolvers) {
  const wrap = element('div', undefined, 'table-wrap');
  // Scrolls sideways on a phone: reachable by keyboard, and named.
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'Your resolvers');
  const table = element('table', undefined, 'resolver-table');
  const head = table.createTHead().insertRow();
  for (const title of ['Resolver', 'Network', 'Location', 'ECS', 'Reverse name']) {
    const th = element('th', title);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of resolvers) {
    const row = body.insertRow();
    const cells = [
      r.ip,
      [r.asn, r.provider].filter(Boolean).join(' ') || 'unknown',
      [r.city, r.country].filter(Boolean).join(', ') || 'unknown',
      r.ecs ?? 'none',
      r.hostname ?? 'none',
    ];
    for (const text of cells) row.insertCell().textContent = text;
  }
  wrap.append(table);
  return wrap;
}

async function runResolverTest() {
  const summary = document.getElementById('resolver-summary');
  const result = document.getElementById('resolver-result');
  const again = document.getElementById('resolver-again');
  if (!summary || !result) return;
  again?.setAttribute('disabled', '');
  summary.textContent = "Looking up the test's names…";
  result.replaceChildren();
  const token = makeToken();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 8000);
  await Promise.all([visit(`ok-${token}`, controller.signal), visit(`bad-${token}`, controller.signal)]);
  clearTimeout(timer);
  // The last query may reach the listener just after the browser gave up on the broken name.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const path = `/api/v1/resolver/${token}`;
  const response = await fetch(path, { cache: 'no-store' }).catch(() => undefined);
  const answer = await response?.json().catch(() => undefined);
  if (response?.status === 200 && answer) {
    summary.textContent = describe(answer);
    result.append(resolverTable(answer.resolvers));
  } else if (response?.status === 404) {
    summary.textContent =
      "No resolver looked up the test's names: your browser may resolve names itself (DNS over HTTPS) through a service that never reached this one, or a filter blocked them.";
  } else {
    summary.textContent = answer?.error ?? 'The test could not be read from the API.';
  }
  const command = `curl ${origin}${path}`;
  const call = element('div', undefined, 'code');
  const copy = element('button', 'Copy', 'copy');
  copy.type = 'button';
  copy.setAttribute('data-copy', command);
  copy.setAttribute('aria-label', 'Copy the curl command');
  const pre = element('pre');
  pre.append(element('code', command));
  call.append(copy, pre);
  result.append(element('p', 'The API call that answered this (for the next few minutes):'), call);
  again?.removeAttribute('disabled');
}

const PORT_REASONS = {
  refused: 'refused: the address answered, but nothing listens on that port (or a firewall rejects it)',
  timeout: 'not reachable: no answer within 2 seconds (a firewall drops the connection, or the host is off)',
  unreachable: 'not reachable: the network reports your address unreachable',
};

async function checkPort(port) {
  const out = document.getElementById('port-result');
  if (!out) return;
  out.textContent = `Connecting to port ${port}…`;
  const response = await fetch(`/api/v1/port/${encodeURIComponent(port)}`, { cache: 'no-store' }).catch(
    () => undefined,
  );
  const answer = await response?.json().catch(() => undefined);
  if (response?.status === 200 && answer) {
    out.textContent = answer.reachable
      ? `Port ${answer.port} of ${answer.ip} is reachable${typeof answer.time_ms === 'number' ? ` (connected in ${answer.time_ms} ms)` : ''}.`
      : `Port ${answer.port} of ${answer.ip} is ${PORT_REASONS[answer.reason] ?? 'not reachable'}.`;
  } else {
    out.textContent = answer?.error ?? 'The port check could not be made.';
  }
}

const form = document.getElementById('port-form');
form?.addEventListener('submit', (event) => {
  event.preventDefault();
  const port = new FormData(form).get('port')?.toString().trim() ?? '';
  history.replaceState(null, '', `?port=${encodeURIComponent(port)}`);
  checkPort(port);
});
const asked = new URLSearchParams(location.search).get('port');
if (asked) checkPort(asked.trim());

if (zone) {
  document.getElementById('resolver-again')?.addEventListener('click', runResolverTest);
  runResolverTest();
}
