import type { NodeInfo } from './node-info.ts';

/** One entry of a measurement's `locations`: every field given must match; `limit` caps its probes. */
export interface LocationSelector {
  country?: string;
  city?: string;
  continent?: string;
  asn?: number;
  node?: string;
  tag?: string;
  limit?: number;
}

export const SELECTOR_FIELDS = ['country', 'city', 'continent', 'asn', 'node', 'tag'] as const;

export type Selection = { ok: true; nodes: NodeInfo[] } | { ok: false; problem: string };

/** `country=DE, tag=eu` as an error message names a selector. */
export function describeSelector(selector: LocationSelector): string {
  return SELECTOR_FIELDS.filter((field) => selector[field] !== undefined)
    .map((field) => `${field}=${selector[field]}`)
    .join(', ');
}

function matches(node: NodeInfo, selector: LocationSelector): boolean {
  const same = (a: string | undefined, b: string | undefined) =>
    b === undefined || a?.toLowerCase() === b.toLowerCase();
  return (
    same(node.location.country, selector.country) &&
    same(node.location.city, selector.city) &&
    same(node.location.continent, selector.continent) &&
    same(node.name, selector.node) &&
    (selector.asn === undefined || node.asn === selector.asn) &&
    (selector.tag === undefined || node.tags.includes(selector.tag.toLowerCase()))
  );
}

/**
 * The probes of a measurement, selector by selector in the order given: each adds up to its `limit`
 * (default 1) of the nodes it matches that can run the tool and are not chosen yet, picked at random
 * (`random` is passed in so tests can fix it); then the whole is cut to `limit`. A selector that
 * matches no node, or only nodes that cannot run the tool, is refused by name, since a measurement
 * with a silently missing region would mislead.
 */
export function selectProbes(
  nodes: readonly NodeInfo[],
  request: { locations: readonly LocationSelector[]; limit: number; tool: string | null },
  random: () => number = Math.random,
): Selection {
  const chosen: NodeInfo[] = [];
  const canRun = (node: NodeInfo) => request.tool === null || node.tools.includes(request.tool);
  for (const [index, selector] of request.locations.entries()) {
    const matching = nodes.filter((node) => matches(node, selector));
    const where = `locations[${index}] (${describeSelector(selector)})`;
    if (matching.length === 0) return { ok: false, problem: `${where} matches no node of the mesh` };
    const able = matching.filter(canRun);
    if (able.length === 0) {
      return { ok: false, problem: `${where} matches only nodes without ${request.tool} (${names(matching)})` };
    }
    const free = shuffled(
      able.filter((node) => !chosen.includes(node)),
      random,
    );
    chosen.push(...free.slice(0, selector.limit ?? 1));
  }
  return { ok: true, nodes: chosen.slice(0, request.limit) };
}

function names(nodes: readonly NodeInfo[]): string {
  const shown = nodes.slice(0, 5).map((node) => node.name);
  return nodes.length > 5 ? `${shown.join(', ')}, ...` : shown.join(', ');
}

function shuffled<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
