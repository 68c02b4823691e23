import type { Static } from 'typebox';
import type { NodeBody } from '../../mesh/schema.ts';
import { hasKey } from './api-call.ts';
import { escapeHtml as e } from './html.ts';
import { codeBlock } from './ip-view.ts';
import { MAP_HEIGHT, MAP_WIDTH, mapPoint } from './world-map.ts';

export type MeshNode = Static<typeof NodeBody>;

export const NODES_TOOL_ENTRY = {
  path: '/nodes',
  heading: 'Nodes',
  summary: 'The instances of this mesh on the world map: where each is, its network and what it can run.',
} as const;

/** The tool pages that can run from other nodes: their key is the measurement's `type`. */
export const MESH_TOOL_KEYS: ReadonlySet<string> = new Set(['ping', 'traceroute', 'mtr', 'dns', 'http', 'ssl']);

/** A 200 of /api/v1/nodes has its schema's shape (the API serialised it); anything else is no list. */
export function nodesOf(status: number, body: unknown): MeshNode[] {
  return status === 200 && hasKey(body, 'nodes') && Array.isArray(body.nodes) ? body.nodes : [];
}

/** A page parameter given once or repeated (`from=a&from=b`), as a list. */
export function listValue(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((v) => v.trim());
}

function nodeLabel(node: MeshNode): string {
  const place = [node.location.city, node.location.country].filter(Boolean).join(', ');
  return place ? `${node.name} (${place})` : node.name;
}

/**
 * The "from" choice of a tool page, folded: none chosen is this node (the single-node route, as
 * before); chosen places make the page's script POST a measurement. The list of nodes is fetched by
 * the script when the choice is opened (mesh-tool.js), so a page view costs the visitor no request;
 * the server renders only the URL's values, chosen (a place the mesh lacks stays, so the API's 400
 * says why). Its values are page parameters (no data-api-name), never sent to the single-node route;
 * the probe count is in use (shown, sent) only with places chosen.
 */
export function renderFromChoice(
  query: Record<string, unknown>,
  mapUrl: string,
  summary = 'Run from other nodes',
): string {
  const chosen = listValue(query.from);
  const options = chosen.map((value) => `<option value="${e(value)}" selected>${e(value)}</option>`).join('');
  const probes = listValue(query.probes)[0] ?? '1';
  const off = chosen.length > 0 ? '' : ' hidden';
  return `<details class="from-choice" data-map="${e(mapUrl)}"${chosen.length > 0 ? ' open' : ''}><summary>${e(summary)}</summary>
<div class="from-fields"><div class="field from-field"><label for="tool-from">From</label><select id="tool-from" name="from" multiple size="5" aria-describedby="tool-from-hint">${options}</select></div>
<div class="field narrow"${off}><label for="tool-probes">Probes each</label><input id="tool-probes" name="probes" type="number" inputmode="numeric" min="1" max="100" value="${e(probes)}" data-default="1"${chosen.length > 0 ? '' : ' disabled'}></div></div>
</details>`;
}

export const FROM_HINT = `<p class="hint" id="tool-from-hint">None chosen: this node. Choose nodes or places (Ctrl or ⌘ for several) to run from each and compare; the count caps the probes of a country, continent or tag.</p>`;

/** Every node with coordinates as a marker on the world map (plate carrée, as world-map.ts draws it). */
export function nodesMap(nodes: readonly MeshNode[], mapUrl: string): string {
  const markers = nodes
    .filter((node) => node.location.latitude !== undefined && node.location.longitude !== undefined)
    .map((node) => {
      const { x, y } = mapPoint(node.location.latitude ?? 0, node.location.longitude ?? 0);
      return `<circle class="pin" cx="${x.toFixed(2)}" cy="${y.toFixed(2)}" r="3.5"><title>${e(nodeLabel(node))}</title></circle>`;
    });
  const label = `World map of the mesh: ${markers.length} of ${nodes.length} ${nodes.length === 1 ? 'node has' : 'nodes have'} a known place.`;
  return `<svg class="map mesh-map" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" role="img" aria-label="${e(label)}"><image href="${e(mapUrl)}" width="${MAP_WIDTH}" height="${MAP_HEIGHT}"/>${markers.join('')}</svg>`;
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** The /nodes page: the mesh on the map and one row per node, from the /api/v1/nodes answer. */
export function renderNodesPage(
  nodes: readonly MeshNode[],
  view: { mapUrl: string; refusal: string | null; origin: string },
): string {
  const { mapUrl, refusal } = view;
  const rows = nodes
    .map((node) => {
      const place = [node.location.city, node.location.country, node.location.continent].filter(Boolean).join(', ');
      const asn =
        node.asn === null
          ? '<span class="unknown">unknown</span>'
          : `AS${node.asn}${node.as_name ? ` ${e(node.as_name)}` : ''}`;
      const cells = [
        `<td class="mono" data-label="Name">${e(node.name)}</td>`,
        `<td data-label="Location">${place ? e(place) : '<span class="unknown">unknown</span>'}</td>`,
        `<td data-label="ASN">${asn}</td>`,
        `<td data-label="Tags">${e(node.tags.join(', ')) || '<span class="unknown">none</span>'}</td>`,
        `<td data-label="Tools">${e(node.tools.join(', '))}</td>`,
        `<td data-label="IPv4 / IPv6">${yesNo(node.ipv4)} / ${yesNo(node.ipv6)}</td>`,
        `<td data-label="Raw sockets">${yesNo(node.raw_sockets)}</td>`,
      ];
      return `<tr data-node="${e(node.name)}">${cells.join('')}</tr>`;
    })
    .join('\n');
  const headings = ['Name', 'Location', 'ASN', 'Tags', 'Tools', 'IPv4 / IPv6', 'Raw sockets'];
  const table = `<div class="table-wrap" tabindex="0" role="region" aria-label="Nodes"><table class="stack"><caption class="visually-hidden">Nodes</caption><thead><tr>${headings.map((heading) => `<th scope="col">${heading}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div>`;
  return `<h1>Nodes</h1>
<p class="lead">The instances that measure for this one: each tool page can run from any of them (its "From" choice), and the API takes them as a measurement's <code>locations</code>.</p>
${refusal === null ? '' : `<p class="alert warn" role="alert">${e(refusal)}</p>`}
<div class="nodes">
<section class="card" aria-labelledby="nodes-map-title"><h2 id="nodes-map-title">The mesh: ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}</h2>
${nodesMap(nodes, mapUrl)}
</section>
<section class="card" aria-labelledby="nodes-table-title"><h2 id="nodes-table-title">Every node</h2>
${table}
<p>The same list from a terminal:</p>
${codeBlock(`curl ${view.origin}/api/v1/nodes`, 'the curl command')}
</section>
</div>`;
}
