import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeInfo } from '../../src/mesh/node-info.ts';
import { selectProbes } from '../../src/mesh/select-probes.ts';

function node(name: string, facts: Partial<NodeInfo> = {}): NodeInfo {
  return {
    name,
    location: {},
    asn: null,
    as_name: null,
    tags: [],
    tools: ['ping', 'traceroute', 'mtr'],
    ipv4: true,
    ipv6: false,
    raw_sockets: true,
    version: '0.1.0',
    ...facts,
  };
}

const fra = node('fra', { location: { country: 'DE', city: 'Frankfurt', continent: 'EU' }, asn: 3320, tags: ['eu'] });
const ber = node('ber', { location: { country: 'DE', city: 'Berlin', continent: 'EU' }, asn: 3320, tags: ['eu'] });
const nyc = node('nyc', { location: { country: 'US', city: 'New York', continent: 'NA' }, asn: 7018, tools: ['ping'] });
const mesh = [fra, ber, nyc];
const first = () => 0;
const names = (selection: ReturnType<typeof selectProbes>): string[] | string =>
  selection.ok ? selection.nodes.map((n) => n.name) : selection.problem;

test('each selector adds up to its limit (default 1) of the nodes it matches, every field matching', () => {
  assert.deepEqual(
    [...names(selectProbes(mesh, { locations: [{ country: 'de', limit: 5 }], limit: 20, tool: null }, first))].sort(),
    ['ber', 'fra'],
  );
  assert.deepEqual(
    names(selectProbes(mesh, { locations: [{ country: 'DE' }], limit: 20, tool: null }, first)).length,
    1,
  );
  assert.deepEqual(
    names(selectProbes(mesh, { locations: [{ country: 'DE', city: 'berlin' }], limit: 20, tool: null })),
    ['ber'],
  );
  assert.deepEqual(
    names(selectProbes(mesh, { locations: [{ asn: 7018 }, { tag: 'EU', limit: 2 }], limit: 20, tool: null }, first))
      .length,
    3,
  );
  assert.deepEqual(names(selectProbes(mesh, { locations: [{ continent: 'NA' }], limit: 20, tool: null })), ['nyc']);
  assert.deepEqual(names(selectProbes(mesh, { locations: [{ node: 'fra' }], limit: 20, tool: null })), ['fra']);
});

test('a node is chosen once, even when two selectors match it', () => {
  const chosen = names(
    selectProbes(mesh, { locations: [{ node: 'fra' }, { country: 'DE', limit: 2 }], limit: 20, tool: null }),
  );
  assert.deepEqual(chosen, ['fra', 'ber']);
});

test('a selector with only a limit matches anywhere; the total is cut to limit', () => {
  assert.equal(names(selectProbes(mesh, { locations: [{ limit: 10 }], limit: 20, tool: null })).length, 3);
  assert.equal(names(selectProbes(mesh, { locations: [{ limit: 10 }], limit: 2, tool: null })).length, 2);
});

test('the nodes are picked at random among those that match', () => {
  const seen = new Set<string>();
  for (const r of [0, 0.99]) {
    const selection = selectProbes(mesh, { locations: [{ country: 'DE' }], limit: 20, tool: null }, () => r);
    seen.add(String(names(selection)));
  }
  assert.deepEqual([...seen].sort(), ['ber', 'fra']);
});

test('a selector that matches nothing, or only nodes without the tool, is named', () => {
  assert.equal(
    names(selectProbes(mesh, { locations: [{ node: 'fra' }, { country: 'JP', tag: 'x' }], limit: 20, tool: null })),
    'locations[1] (country=JP, tag=x) matches no node of the mesh',
  );
  assert.equal(
    names(selectProbes(mesh, { locations: [{ continent: 'NA' }], limit: 20, tool: 'mtr' })),
    'locations[0] (continent=NA) matches only nodes without mtr (nyc)',
  );
  assert.deepEqual(names(selectProbes(mesh, { locations: [{ limit: 3 }], limit: 20, tool: 'mtr' }, first)).length, 2);
});
