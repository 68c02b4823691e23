import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The home page's world map: Natural Earth's 1:110m country outlines (public domain), as packaged
 * by `world-atlas` (ISC) in TopoJSON, drawn once at startup into one SVG served from this origin.
 * No tile server, no CDN: the marker is placed by the page itself from the answer's coordinates.
 *
 * Plate carrée: x = longitude + 180, y = MAP_NORTH - latitude, in degrees, so the page places a
 * point without knowing anything else about the projection.
 */
export const MAP_NORTH = 84;
export const MAP_SOUTH = -58;
export const MAP_WIDTH = 360;
export const MAP_HEIGHT = MAP_NORTH - MAP_SOUTH;

interface Topology {
  transform: { scale: [number, number]; translate: [number, number] };
  arcs: [number, number][][];
  objects: Record<string, { geometries: Geometry[] }>;
}
type Geometry =
  | { type: 'Polygon'; arcs: number[][] }
  | { type: 'MultiPolygon'; arcs: number[][][] }
  | { type: null; arcs?: undefined };

/** Where a coordinate falls on the map, in its viewBox units. */
export function mapPoint(latitude: number, longitude: number): { x: number; y: number } {
  const y = Math.min(MAP_HEIGHT, Math.max(0, MAP_NORTH - latitude));
  return { x: longitude + 180, y };
}

/** Each arc's points in degrees (TopoJSON stores them quantised and delta-encoded). */
function decodeArcs(topology: Topology): [number, number][][] {
  const [sx, sy] = topology.transform.scale;
  const [tx, ty] = topology.transform.translate;
  return topology.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]): [number, number] => {
      x += dx;
      y += dy;
      return [x * sx + tx, y * sy + ty];
    });
  });
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * One ring as path commands: arcs joined, a negative index (~i) read backwards. A ring that crosses
 * the antimeridian (Russia's east, Fiji, Antarctica) is unwrapped eastwards so no edge runs across
 * the whole map, and drawn a second time 360 degrees to the west for its part beyond -180.
 */
function ringPaths(ring: number[], arcs: [number, number][][]): string[] {
  const points: [number, number][] = [];
  for (const index of ring) {
    const arc = index >= 0 ? arcs[index] : arcs[~index]?.slice().reverse();
    if (!arc) continue;
    // Consecutive arcs share their joining point.
    points.push(...(points.length > 0 ? arc.slice(1) : arc));
  }
  const crosses = points.some(([longitude], i) => i > 0 && Math.abs(longitude - (points[i - 1]?.[0] ?? 0)) > 180);
  // Not clamped: land beyond the map's edges is clipped by the viewBox, not flattened onto them.
  const projected = points.map(([longitude, latitude]) => ({
    x: (crosses && longitude < 0 ? longitude + 360 : longitude) + 180,
    y: MAP_NORTH - latitude,
  }));
  const paths = [pathOf(projected)];
  if (crosses) paths.push(pathOf(projected.map(({ x, y }) => ({ x: x - 360, y }))));
  return paths;
}

function pathOf(points: readonly { x: number; y: number }[]): string {
  let path = '';
  let last = '';
  for (const { x, y } of points) {
    const point = `${round(x)} ${round(y)}`;
    if (point === last) continue;
    path += `${path === '' ? 'M' : 'L'}${point}`;
    last = point;
  }
  return path === '' ? '' : `${path}Z`;
}

/** The SVG document: every country's outline in one path (borders show as the gaps between fills). */
export function worldMapSvg(topology: Topology = loadTopology()): string {
  const arcs = decodeArcs(topology);
  const rings: string[] = [];
  for (const geometry of topology.objects.countries?.geometries ?? []) {
    if (geometry.type === 'Polygon') for (const ring of geometry.arcs) rings.push(...ringPaths(ring, arcs));
    if (geometry.type === 'MultiPolygon') {
      for (const polygon of geometry.arcs) for (const ring of polygon) rings.push(...ringPaths(ring, arcs));
    }
  }
  // Colours follow the page's light or dark scheme (an SVG image sees the embedding page's preference).
  const style =
    'path{fill:#b8c4d2;stroke:#f7f9fb;stroke-width:.3;stroke-linejoin:round}' +
    '@media (prefers-color-scheme:dark){path{fill:#3a4758;stroke:#111820}}';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}"><style>${style}</style><path fill-rule="evenodd" d="${rings.join('')}"/></svg>\n`;
}

function loadTopology(): Topology {
  const require = createRequire(import.meta.url);
  const topology: Topology = JSON.parse(readFileSync(require.resolve('world-atlas/countries-110m.json'), 'utf8'));
  return topology;
}
