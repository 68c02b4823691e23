import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { FastifyInstance } from 'fastify';
import { callTool } from '../../src/mcp/call.ts';
import { deriveTools, type JsonObjectSchema, type McpTool, requestOf } from '../../src/mcp/tools.ts';
import { buildTestApp } from '../support/app.ts';
import { isLoopback, watchEgress } from '../support/egress-watch.ts';

// Property: a tool's derived input schema, checked as an MCP client checks it, refuses a set of
// arguments exactly when the route's schema validation refuses the request the call stands for.

type Schema = Record<string, unknown>;
type Args = Record<string, unknown>;
const CASES_PER_TOOL = 250;
const SEED = Number(process.env.MCP_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const validator = new AjvJsonSchemaValidator();

let app: FastifyInstance;
let tools: Map<string, McpTool>;
let listed: Map<string, JsonObjectSchema>;
/** Request ids of the requests whose schema validation refused them (the error handler's `error.validation`). */
const refusedByValidation = new Set<string>();

before(async () => {
  // Hundreds of calls from one address: the limits are not what is tested here.
  app = await buildTestApp({ RATE_LIMITS: 'public=10000000/10000000' });
  app.addHook('onError', async (request, _reply, error) => {
    if ((error as { validation?: unknown }).validation)
      refusedByValidation.add(String(request.headers['x-request-id']));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  tools = new Map(deriveTools(app.routeCatalogue.routes).map((tool) => [tool.name, tool]));
  // The schemas as a client receives them (tools/list over Streamable HTTP), not as the server holds them.
  const client = new Client({ name: 'derived-schemas', version: '1' });
  const { port } = app.server.address() as { port: number };
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  listed = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool.inputSchema as JsonObjectSchema]));
  await client.close();
});
after(() => app.close());

/** Mulberry32: small, seeded, so a failure is replayed with MCP_PROPERTY_SEED. */
function rng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    chance: (p: number) => next() < p,
    int,
    pick: <T>(list: readonly T[]): T => list[int(0, list.length - 1)] as T,
  };
}
type Rng = ReturnType<typeof rng>;

// Targets stay on this machine: an address that is not loopback or documentation becomes one that is
// (the policy refuses those after validation); names resolve through DNS_SERVERS=127.0.0.1:9.
function safe(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(safe);
  if (typeof value !== 'string') return value;
  const kind = isIP(value);
  if (kind === 4 && !/^(127\.|192\.0\.2\.|198\.51\.100\.|203\.0\.113\.)/.test(value)) return '192.0.2.1';
  if (kind === 6 && !/^2001:db8:/i.test(value) && value !== '::1') return '2001:db8::1';
  return value;
}

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz',
  '0123456789',
  'abcdefghijklmnopqrstuvwxyz0123456789.-_',
  'Aé ü/?&#%+=:',
];

function randomString(r: Rng, length: number): string {
  const alphabet = r.pick(ALPHABETS);
  return safe(Array.from({ length }, () => r.pick([...alphabet])).join('')) as string;
}

function lengthIn(schema: Schema, r: Rng, fallbackMax: number): number {
  const min = Number(schema.minLength ?? schema.minItems ?? 0);
  const max = Number(schema.maxLength ?? schema.maxItems ?? Math.max(min, fallbackMax));
  // Boundaries often, the rest inside.
  return r.pick([min, max, r.int(min, Math.min(max, min + 40)), r.int(min, Math.min(max, min + 40))]);
}

function validString(schema: Schema, r: Rng): string {
  if (Array.isArray(schema.examples) && r.chance(0.6)) return safe(r.pick(schema.examples)) as string;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  for (let attempt = 0; attempt < 200; attempt++) {
    // A path segment over the router's 100 characters is refused before validation (a test of its own below).
    const value = randomString(r, Math.min(lengthIn(schema, r, pattern ? 6 : 40), 100));
    if (!pattern || pattern.test(value)) return value;
  }
  throw new Error(`no value found for the pattern ${schema.pattern}`);
}

function numbersIn(schema: Schema, r: Rng): number {
  const lo = Number(schema.minimum ?? -1000);
  const hi = Number(schema.maximum ?? lo + 1000);
  const inside = r.int(lo, hi);
  return r.pick([lo, hi, inside, schema.type === 'number' ? inside + 0.25 : inside].filter((n) => n <= hi));
}

function validValue(schema: Schema, r: Rng): unknown {
  if (Array.isArray(schema.anyOf)) return validValue(r.pick(schema.anyOf as Schema[]), r);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return r.pick(schema.enum);
  if (schema.default !== undefined && r.chance(0.15)) return schema.default;
  switch (schema.type) {
    case 'integer':
    case 'number':
      return numbersIn(schema, r);
    case 'boolean':
      return r.chance(0.5);
    case 'string':
      return validString(schema, r);
    case 'array': {
      if (Array.isArray(schema.examples) && r.chance(0.3)) return safe(r.pick(schema.examples));
      return Array.from({ length: lengthIn(schema, r, 5) }, () => validValue(schema.items as Schema, r));
    }
    case 'object':
      return validObject(schema, r);
  }
  throw new Error(`no generator for ${JSON.stringify(schema)}`);
}

function validObject(schema: Schema, r: Rng): Args {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const value: Args = {};
  const names = Object.keys(properties);
  for (const name of names)
    if (required.has(name) || r.chance(0.5)) value[name] = validValue(properties[name] as Schema, r);
  while (Object.keys(value).length < Number(schema.minProperties ?? 0)) {
    const name = r.pick(names);
    value[name] = validValue(properties[name] as Schema, r);
  }
  const patterned = Object.values((schema.patternProperties ?? {}) as Record<string, Schema>)[0];
  if (patterned) {
    const count = r.int(0, Math.min(Number(schema.maxProperties ?? 3), 3));
    for (let i = 0; i < count; i++) value[randomString(r, r.int(1, 8))] = validValue(patterned, r);
  }
  return value;
}

/** A value the schema should refuse: out of range, the wrong JSON type, not a member, too long, not matching... */
function invalidValue(schema: Schema, r: Rng): unknown {
  const candidates: unknown[] = [null, true, 7, 1.5, 'text', [], { a: 1 }];
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) candidates.push(Number(schema.minimum) - 1);
    if (schema.maximum !== undefined) candidates.push(Number(schema.maximum) + 1);
    if (schema.type === 'integer') candidates.push(numbersIn(schema, r) + 0.5);
  }
  if (typeof schema.maxLength === 'number') candidates.push('x'.repeat(schema.maxLength + 1));
  if (typeof schema.minLength === 'number' && schema.minLength > 0) candidates.push('x'.repeat(schema.minLength - 1));
  if (typeof schema.pattern === 'string') candidates.push('not matching!', '123456');
  const members = [...((schema.enum as unknown[]) ?? []), ...((schema.anyOf as Schema[]) ?? []).map((s) => s.const)];
  for (const member of members) if (typeof member === 'string') candidates.push(`${member}x`, member.toLowerCase());
  if (schema.type === 'array') {
    const items = schema.items as Schema;
    if (Number(schema.minItems ?? 0) > 0) candidates.push([]);
    if (schema.maxItems !== undefined) {
      candidates.push(Array.from({ length: Number(schema.maxItems) + 1 }, () => validValue(items, r)));
    }
    candidates.push([invalidValue(items, r)]);
  }
  if (schema.type === 'object') {
    const inside = validObject(schema, r);
    if (schema.additionalProperties === false) candidates.push({ ...inside, cuntry: 'FR' });
    if (schema.minProperties !== undefined) candidates.push({});
    if (schema.maxProperties !== undefined) {
      candidates.push(
        Object.fromEntries(Array.from({ length: Number(schema.maxProperties) + 1 }, (_, i) => [`k${i}`, 1])),
      );
    }
    const names = Object.keys((schema.properties ?? {}) as object);
    if (names.length > 0) {
      const name = r.pick(names);
      candidates.push({
        ...inside,
        [name]: invalidValue((schema.properties as Record<string, Schema>)[name] as Schema, r),
      });
    }
    const patterned = Object.values((schema.patternProperties ?? {}) as Record<string, Schema>)[0];
    if (patterned) candidates.push({ key: invalidValue(patterned, r) });
  }
  return r.pick(candidates);
}

/** One call's arguments: valid, or with one thing wrong (a value, a required one missing, an unknown one). */
function argumentsFor(schema: JsonObjectSchema, r: Rng): Args {
  const args = validObject(schema, r);
  const names = Object.keys(schema.properties);
  const mutation = r.pick(['none', 'none', 'value', 'value', 'missing', 'unknown']);
  if (mutation === 'value' && names.length > 0) {
    const name = r.pick(names);
    args[name] = invalidValue(schema.properties[name] as Schema, r);
  } else if (mutation === 'missing' && schema.required?.length) {
    delete args[r.pick(schema.required)];
  } else if (mutation === 'unknown') {
    args[r.pick(['colour', 'hots', 'api_key', randomString(r, 6)])] = validValue({ type: 'string' }, r);
  }
  return args;
}

// The routes' deliberate leniencies, which a derived schema does not (and need not) share; each is
// stated by a test below, and the generator leaves them out:
// - a query or path value is text: Fastify reads `"3"` as the integer 3 and `7` arrives as the text "7"
//   (any value whose text the route would read as a valid one, in decimal, `true`/`false`);
// - /dns upper-cases and trims `record_type` before validation.
const NORMALISED: Record<string, Record<string, (text: string) => string>> = {
  dns_lookup: { record_type: (text) => text.trim().toUpperCase() },
};

function readings(text: string, normalise?: (text: string) => string): unknown[] {
  const texts = normalise ? [text, normalise(text)] : [text];
  return texts.flatMap((t) => [
    t,
    ...(/^-?\d+(\.\d+)?$/.test(t) ? [Number(t)] : []),
    ...(t === 'true' || t === 'false' ? [t === 'true'] : []),
  ]);
}

const propertyValidators = new Map<object, (value: unknown) => boolean>();
function propertyAccepts(property: Schema, value: unknown): boolean {
  let check = propertyValidators.get(property);
  if (check === undefined) {
    const validate = validator.getValidator({ type: 'object', properties: { v: property }, required: ['v'] });
    check = (v) => validate({ v }).valid;
    propertyValidators.set(property, check);
  }
  return check(value);
}

function lenient(tool: McpTool, schema: JsonObjectSchema, args: Args): boolean {
  return Object.entries(args).some(([name, value]) => {
    const place = tool.places.get(name);
    const property = schema.properties[name] as Schema | undefined;
    if (property === undefined || (place !== 'query' && place !== 'path') || propertyAccepts(property, value))
      return false;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return readings(text, NORMALISED[tool.name]?.[name]).some((reading) => propertyAccepts(property, reading));
  });
}

let calls = 0;
/** The route's verdict at its schema validation stage; anything after it (the target policy, a 502) is "accepted". */
async function routeRefuses(tool: McpTool, args: Args): Promise<{ refused: boolean; answer: string }> {
  const request = requestOf(tool, args);
  if ('refused' in request) return { refused: true, answer: request.refused };
  const requestId = `property-${++calls}`;
  const result = await callTool(app, tool, args, {
    clientIp: '203.0.113.9',
    authorization: undefined,
    requestId,
    signal: AbortSignal.timeout(20_000),
    uncounted: () => ({}),
  });
  const answer = result.content[0]?.text ?? '';
  assert.ok(!answer.startsWith('429'), `a limit answered, not the route's validation: ${answer}`);
  // The batch route checks its body by hand, its schema being for the document (ipinfo/plugin.ts).
  const byHand = tool.name === 'ip_batch' && answer.startsWith('400: Invalid batch:');
  return { refused: refusedByValidation.has(requestId) || byHand, answer };
}

interface Mismatch {
  args: Args;
  derived: string;
  route: string;
}

async function mismatches(tool: McpTool, schema: JsonObjectSchema, seed: number, cases: number) {
  const r = rng(seed);
  const found: Mismatch[] = [];
  const validate = validator.getValidator(schema);
  let refusals = 0;
  let skipped = 0;
  for (let done = 0; done < cases; ) {
    const args = argumentsFor(schema, r);
    if (lenient(tool, schema, args)) {
      skipped++;
      assert.ok(skipped < cases * 10, `${tool.name}: the generator makes little but lenient cases`);
      continue;
    }
    done++;
    const derived = validate(args);
    const route = await routeRefuses(tool, args);
    if (!derived.valid) refusals++;
    if (derived.valid === route.refused) {
      found.push({ args, derived: derived.errorMessage ?? 'accepted', route: route.answer.slice(0, 200) });
    }
  }
  return { found, refusals };
}

test('every derived input schema refuses exactly what its route refuses (seeded; MCP_PROPERTY_SEED replays)', async () => {
  const peers = watchEgress(process.pid, 20);
  try {
    for (const [name, tool] of tools) {
      const schema = listed.get(name);
      assert.ok(schema, `${name} is not listed by tools/list`);
      assert.deepEqual(schema, tool.inputSchema, `${name}: the client sees another schema than the one derived`);
      const seed = SEED + name.length * 7919 + name.charCodeAt(0);
      const { found, refusals } = await mismatches(tool, schema, seed, CASES_PER_TOOL);
      assert.deepEqual(found.slice(0, 3), [], `${name}: ${found.length} disagreements (seed ${SEED})`);
      // Both verdicts are exercised, or the property says little.
      if (Object.keys(schema.properties).length > 0) {
        assert.ok(refusals > CASES_PER_TOOL / 10 && refusals < CASES_PER_TOOL * 0.9, `${name}: ${refusals} refusals`);
      }
    }
  } finally {
    const away = peers.stop().filter((peer) => !isLoopback(peer.address));
    assert.deepEqual(away, [], 'a call reached outside the machine');
  }
});

test('the property can fail: a derived maximum one above the route is caught', async () => {
  const ping = tools.get('ping') as McpTool;
  const count = ping.inputSchema.properties.count as Schema;
  const corrupted: JsonObjectSchema = {
    ...ping.inputSchema,
    properties: { ...ping.inputSchema.properties, count: { ...count, maximum: Number(count.maximum) + 1 } },
  };
  const { found } = await mismatches(ping, corrupted, SEED, 150);
  assert.ok(found.length > 0, `seed ${SEED}: a wrong maximum went unnoticed`);
  assert.ok(found.every((mismatch) => mismatch.args.count === Number(count.maximum) + 1));
});

const accepts = (name: string, args: Args) =>
  validator.getValidator((tools.get(name) as McpTool).inputSchema)(args).valid;

/** The derived schema refuses `lenient`, which the route's validation takes; both refuse `refused`. */
async function assertLeniency(name: string, lenient: Args, refused: Args) {
  const tool = tools.get(name) as McpTool;
  assert.equal(accepts(name, lenient), false);
  assert.equal((await routeRefuses(tool, lenient)).refused, false);
  assert.equal((await routeRefuses(tool, refused)).refused, true);
}

test('leniency: a query value is text, so the route reads "3" as the integer 3, which the derived schema refuses', () =>
  assertLeniency('ping', { host: '127.0.0.2', count: '3' }, { host: '127.0.0.2', count: '11' }));

test('leniency: /dns upper-cases record_type before validation, so "mx" passes the route and not the derived enum', () =>
  assertLeniency(
    'dns_lookup',
    { host: 'example.com', record_type: ' mx' },
    { host: 'example.com', record_type: 'MXX' },
  ));

test('strictness outside the schema: the router refuses a path parameter over 100 characters the schema allows', async () => {
  const args = { asn: `AS${'1'.repeat(120)}` };
  assert.equal(accepts('asn_info', args), true);
  const { refused, answer } = await routeRefuses(tools.get('asn_info') as McpTool, args);
  assert.equal(refused, false, 'not at the schema validation stage');
  assert.match(answer, /^400: Invalid path parameter 'asn': longer than 100 characters/);
});

test('regression: an empty path argument, which the derived schema allows, reaches the route (the tool refused it)', async () => {
  assert.equal(accepts('ip_info', { ip: '' }), true);
  const { refused, answer } = await routeRefuses(tools.get('ip_info') as McpTool, { ip: '' });
  const direct = await app.inject({ url: '/api/v1/json/', remoteAddress: '203.0.113.9' });
  assert.equal(refused, false, 'the route itself refuses it, after validation');
  assert.equal(answer, `${direct.statusCode}: ${direct.json().error}`);
});

test('regression: a batch whose items are not a list is told so by the route, not answered 415', async () => {
  for (const items of ['8.8.8.8', null]) {
    const { refused, answer } = await routeRefuses(tools.get('ip_batch') as McpTool, { items });
    assert.equal(refused, true, answer);
    assert.match(answer, /^400: Invalid batch: the body must be a JSON array of strings/);
  }
});

test('regression: the batch route checks its query string (it took `?hots=x` silently, its validator passing all)', async () => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/batch?hots=x',
    remoteAddress: '203.0.113.9',
    headers: { 'content-type': 'application/json' },
    payload: '["192.0.2.1"]',
  });
  assert.equal(response.statusCode, 400);
  assert.match(response.json().error, /^Unknown query parameter 'hots'/);
});
