import type { CataloguedRoute } from '../http/route-catalogue.ts';
import type { AgentTool } from '../http/route-config.ts';

/** A JSON Schema object, as MCP's `inputSchema` carries it (plain JSON: TypeBox's symbols left out). */
export type JsonObjectSchema = {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  additionalProperties: false;
};

/** Where each of a tool's arguments goes in the route's request. */
export type ArgumentPlace = 'path' | 'query' | 'body' | 'items';

export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObjectSchema;
  readonly method: 'GET' | 'POST';
  /** The route's URL pattern, `:name` for a path parameter. */
  readonly url: string;
  readonly places: ReadonlyMap<string, ArgumentPlace>;
  /** The route answers Server-Sent Events (its events become progress). */
  readonly stream: boolean;
  readonly summary: (answer: unknown) => string;
  readonly follow?: (answer: unknown) => { readonly events: string; readonly result: string };
}

/** A routed request to a tool's route: the `items` argument of a route whose body is a list (batch). */
const ITEMS = 'items';

/** Parameters a route reads from the query string for transports MCP does not use (`?api_key=` for EventSource). */
const TRANSPORT_PARAMETERS = new Set(['api_key']);

const plain = (schema: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(schema ?? {}));
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * Every route that names an agent tool, as that tool: its input is the route's own path, query and
 * body schemas merged (names, types, enums, limits, defaults, descriptions as the route validates
 * them), its description the route's. Nothing about a route's parameters is written here.
 */
export function deriveTools(routes: readonly CataloguedRoute[]): McpTool[] {
  const tools = new Map<string, McpTool>();
  for (const route of routes) {
    const declared = route.config?.agentTool;
    // A GET's HEAD twin shares its options.
    if (declared === undefined || 'none' in declared || route.method === 'HEAD') continue;
    if (route.method !== 'GET' && route.method !== 'POST') throw new Error(`${route.url}: a tool is a GET or a POST`);
    if (tools.has(declared.name)) throw new Error(`two routes name the tool ${declared.name}`);
    tools.set(declared.name, toolOf(route, declared));
  }
  return [...tools.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function toolOf(route: CataloguedRoute, declared: AgentTool): McpTool {
  const schema = record(route.schema);
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const places = new Map<string, ArgumentPlace>();
  const add = (source: unknown, place: ArgumentPlace) => {
    const object = plain(source);
    if (object.type !== 'object') throw new Error(`${route.url}: the ${place} schema is not an object`);
    const listed = new Set(Array.isArray(object.required) ? object.required.map(String) : []);
    for (const [name, property] of Object.entries(record(object.properties))) {
      if (place === 'query' && TRANSPORT_PARAMETERS.has(name) && route.config?.apiKeyInQuery) continue;
      if (places.has(name))
        throw new Error(`${route.url}: ${name} is both a ${places.get(name)} and a ${place} parameter`);
      places.set(name, place);
      properties[name] = record(property);
      if (listed.has(name)) required.push(name);
    }
  };
  if (schema.params) add(schema.params, 'path');
  if (schema.querystring) add(schema.querystring, 'query');
  if (schema.body) {
    const body = plain(schema.body);
    if (body.type === 'array') {
      // MCP's input is an object: a list body is the argument `items`.
      places.set(ITEMS, 'items');
      properties[ITEMS] = body;
      required.push(ITEMS);
    } else add(body, 'body');
  }
  const refs = JSON.stringify(properties).includes('"$ref"');
  if (refs) throw new Error(`${route.url}: an input schema with $ref cannot be given to a client as it is`);
  const summary = typeof schema.summary === 'string' ? schema.summary : declared.name;
  const description = typeof schema.description === 'string' ? schema.description : '';
  return {
    name: declared.name,
    title: summary,
    description: description ? `${summary}.\n\n${description}` : summary,
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    method: route.method as 'GET' | 'POST',
    url: route.url,
    places,
    stream: route.config?.stream === true,
    summary: declared.summary as (answer: unknown) => string,
    ...(declared.follow ? { follow: declared.follow as (answer: unknown) => { events: string; result: string } } : {}),
  };
}

/** The request a tool call stands for: its URL (path and query filled in) and its JSON body, if any. */
export function requestOf(
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
): { url: string; body?: unknown } | { refused: string } {
  const query = new URLSearchParams();
  let body: Record<string, unknown> | undefined = tool.method === 'POST' ? {} : undefined;
  let items: unknown;
  let url = tool.url;
  for (const [name, place] of tool.places) {
    if (place !== 'path') continue;
    const value = args[name];
    // An empty one is sent: the route answers it as it does over HTTP (its schema allows "").
    if (value === undefined || value === null) return { refused: `Missing required parameter '${name}'.` };
    const text = argumentText(value);
    // URL parsing folds a `.` or `..` segment (encoded or not) into the path: it would ask another route.
    if (/^(\.|%2e){1,2}$/i.test(text))
      return { refused: `Invalid path parameter '${name}': "${text}" cannot be a path segment.` };
    url = url.replace(`:${name}`, encodeURIComponent(text));
  }
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    // The route would read it as the key: an MCP client's key is its connection's Authorization header.
    if (TRANSPORT_PARAMETERS.has(name) && !tool.places.has(name)) {
      return { refused: `Unknown parameter '${name}': send the API key as the MCP connection's Authorization header.` };
    }
    // An argument no place names is passed on as a query parameter: the route refuses it by name.
    const place = tool.places.get(name) ?? 'query';
    if (place === 'path') continue;
    if (place === 'items') items = value;
    else if (place === 'body') body = { ...body, [name]: value };
    else query.append(name, argumentText(value));
  }
  if (items !== undefined) body = items as Record<string, unknown>;
  const search = query.size > 0 ? `?${query}` : '';
  return { url: `${url}${search}`, ...(body === undefined ? {} : { body }) };
}

/** A query or path value as the route reads it: a string as it is, anything else as its JSON (which a route refuses by name if it wants a word). */
function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
