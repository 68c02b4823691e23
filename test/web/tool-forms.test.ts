// Every tool page's form against its API, read from the OpenAPI document (not from the code that builds
// the forms): each control is an API parameter with the schema's required-ness, options and limits;
// every value a control offers is accepted by the API (a real call, upstreams faked: tool-fakes.ts);
// every parameter the API takes (but api_key) has a control.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MESH_TOOL_KEYS } from '../../src/web/site/mesh-pages.ts';
import { TOOLS } from '../../src/web/site/tool-definitions.ts';
import { buildTestApp } from '../support/app.ts';
import { startToolFakes } from './tool-fakes.ts';

interface Control {
  readonly name: string;
  readonly api: string;
  readonly required: boolean;
  readonly initial: string;
  readonly options: readonly string[] | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly onlyWith: { readonly field: string; readonly value: string } | undefined;
}

interface Parameter {
  readonly name: string;
  readonly required?: boolean;
  readonly schema: {
    enum?: string[];
    anyOf?: { enum?: string[] }[];
    default?: unknown;
    minimum?: number;
    maximum?: number;
  };
}

const attribute = (tag: string, name: string) => tag.match(new RegExp(` ${name}="([^"]*)"`))?.[1];
const numberOf = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const htmlText = (text: string) => text.replaceAll('&amp;', '&').replaceAll('&quot;', '"');

/** The form's controls as the page renders them. */
function controlsOf(html: string): Control[] {
  const field =
    /<div class="field[^"]*"(?: data-only-with="([^"]+)" data-only-value="([^"]+)")?[^>]*><label[^>]*>[^<]*<\/label>(<select[^>]*>[\s\S]*?<\/select>|<input[^>]*>)/g;
  return [...html.matchAll(field)].map(([, withField, withValue, control = '']) => {
    const tag = control.slice(0, control.indexOf('>') + 1);
    const options = control.startsWith('<select')
      ? [...control.matchAll(/<option(?: value="([^"]*)")?[^>]*>([^<]*)<\/option>/g)].map(([, value, text = '']) =>
          htmlText(value ?? text),
        )
      : undefined;
    return {
      name: attribute(tag, 'name') ?? '',
      api: attribute(tag, 'data-api-name') ?? '',
      required: / required[ >]/.test(tag),
      initial: htmlText(attribute(tag, 'value') ?? attribute(tag, 'data-default') ?? ''),
      options,
      min: numberOf(attribute(tag, 'min')),
      max: numberOf(attribute(tag, 'max')),
      onlyWith: withField && withValue ? { field: withField, value: withValue } : undefined,
    };
  });
}

/** The values a parameter's schema lists: an enum, or a union of one-value enums. */
function listedValues(parameter: Parameter): string[] | undefined {
  if (parameter.schema.enum) return parameter.schema.enum;
  const members = parameter.schema.anyOf?.map((member) => member.enum);
  return members?.every((values) => values?.length === 1) ? members.flatMap((values) => values ?? []) : undefined;
}

describe('tool forms match their API', { timeout: 600_000 }, () => {
  let fakes: Awaited<ReturnType<typeof startToolFakes>>;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let parameters: Record<string, Parameter[]> = {};
  /** Values the fakes answer for, for the parameters a call cannot go without. */
  let given: Record<string, Record<string, string>> = {};

  before(async () => {
    fakes = await startToolFakes();
    app = await buildTestApp({ ...fakes.env, RATE_LIMITS: 'public=100000/1000000' }, fakes.deps);
    // A stream would run its probe for seconds: past validation, its call is accepted, and ends there.
    app.addHook('preHandler', async (request, reply) => {
      if (/^\/api\/v1\/(ping|traceroute|mtr)\?/.test(request.url)) return reply.code(204).send();
    });
    await app.ready();
    const document = (await app.inject('/api/v1/openapi.json')).json();
    parameters = Object.fromEntries(TOOLS.map((tool) => [tool.api, document.paths[tool.api].get.parameters]));
    given = {
      '/api/v1/dns': { host: 'example.test', record_type: 'A' },
      '/api/v1/whois': { target: 'example.test' },
      '/api/v1/ssl': { host: 'valid.tls.test' },
      '/api/v1/blacklist': { ip: '127.0.0.2' },
      '/api/v1/mail': { domain: 'good.mail.test' },
      '/api/v1/http': { url: `http://valid.tls.test:${fakes.webPort}/old` },
      '/api/v1/ping': { host: '127.0.0.1' },
      '/api/v1/traceroute': { host: '127.0.0.1' },
      '/api/v1/mtr': { host: '127.0.0.1' },
    };
  });
  after(async () => {
    await app?.close();
    await fakes?.close();
  });

  async function status(api: string, values: Record<string, string>): Promise<number> {
    // A PTR lookup is of an address (a name is a 400 whatever the form offers).
    const ptr: Record<string, string> = values.record_type === 'PTR' ? { host: '192.0.2.1' } : {};
    const query = new URLSearchParams({ ...given[api], ...ptr, ...values });
    return (await app.inject({ url: `${api}?${query}` })).statusCode;
  }

  for (const tool of TOOLS) {
    it(`${tool.path}: each control is a parameter of ${tool.api}, offering only what it accepts`, async () => {
      const page = await app.inject({ url: tool.path, headers: { accept: 'text/html' } });
      assert.equal(page.statusCode, 200);
      const all = controlsOf(page.body);
      // The "from" choice (issue 31) is the page's own: it picks nodes for a measurement, never sent to the route.
      const pageOnly = all.filter((control) => control.api === '').map((control) => control.name);
      assert.deepEqual(pageOnly, MESH_TOOL_KEYS.has(tool.key) ? ['from', 'probes'] : [], 'page-only controls');
      const controls = all.filter((control) => control.api !== '');
      const accepted = parameters[tool.api] ?? [];
      assert.deepEqual(
        controls.map((control) => control.api).sort(),
        accepted
          .map((parameter) => parameter.name)
          .filter((name) => name !== 'api_key')
          .sort(),
        'one control per API parameter (but api_key)',
      );
      for (const control of controls) {
        const parameter = accepted.find((candidate) => candidate.name === control.api);
        assert.ok(parameter);
        const what = `${tool.path} ${control.name}`;
        assert.equal(control.required, parameter.required === true, `${what}: required as the API`);
        const context: Record<string, string> = {};
        if (control.onlyWith) {
          const other = controls.find((candidate) => candidate.name === control.onlyWith?.field);
          if (other) context[other.api] = control.onlyWith.value;
        }
        const accepts = async (value: string) =>
          assert.notEqual(await status(tool.api, { ...context, [control.api]: value }), 400, `${what}=${value}`);
        const refuses = async (value: string) =>
          assert.equal(await status(tool.api, { ...context, [control.api]: value }), 400, `${what}=${value}`);

        if (control.options) {
          for (const option of control.options) if (option !== '') await accepts(option);
          const listed = listedValues(parameter);
          if (listed) {
            // A blank first choice sends nothing and stands for the one value the API then takes.
            const missing = listed.filter((value) => !control.options?.includes(value));
            const implied = parameter.schema.default ?? (listed.includes('false') ? 'false' : undefined);
            assert.deepEqual(missing, control.options.includes('') && implied !== undefined ? [implied] : [], what);
          }
          continue;
        }
        if (control.initial !== '') await accepts(control.initial);
        if (control.min === undefined || control.max === undefined) continue;
        if (parameter.schema.minimum !== undefined) assert.equal(control.min, parameter.schema.minimum, what);
        if (parameter.schema.maximum !== undefined) assert.equal(control.max, parameter.schema.maximum, what);
        await accepts(String(control.min));
        await accepts(String(control.max));
        await refuses(String(control.min - 1));
        await refuses(String(control.max + 1));
      }
    });
  }
});
