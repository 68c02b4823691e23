import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESSION_THRESHOLD_BYTES, type ContentCoding, chooseCoding } from '../../http/compression.ts';
import { apiErrors } from '../../http/errors.ts';
import { ifNoneMatchHits } from '../../http/etag.ts';
import { worldMapSvg } from './world-map.ts';

/**
 * Every file the pages load, served by the service itself from `/assets/<name>` (no CDN): the
 * site's own styles and modules (`src/web/site/assets/`), the world map drawn at startup, and the
 * API reference's renderer from `swagger-ui-dist`. Each is read once; its URL carries a hash of its
 * content (`?v=`), so a versioned URL is cached for a year and an unversioned one revalidates with
 * its ETag (304). Compressed copies (brotli, gzip) are made on first demand and kept.
 */
export const ASSET_PREFIX = '/assets';

const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly version: string;
  readonly etag: string;
  brotli?: Buffer;
  gzip?: Buffer;
}

export interface AssetStore {
  /** The versioned URL of an asset (throws for an unknown name: a page naming a missing file is a bug). */
  url(name: string): string;
  get(name: string): Asset | undefined;
  /** Every name, for tests and the page-weight check. */
  names(): string[];
}

function asset(body: Buffer, name: string): Asset {
  const type = TYPES[path.extname(name)];
  if (!type) throw new Error(`no content type for asset ${name}`);
  const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { body, type, version, etag: `"${version}"` };
}

/**
 * A module's imports of its siblings (`from './tool.js'`) are given the sibling's version, so they
 * are cached for a year like every other asset URL, and a change to the sibling changes the
 * importer's version too. A sibling must come before its importers in the list.
 */
export function versionImports(source: string, versionOf: (name: string) => string | undefined): string {
  return source.replace(
    /(\bfrom\s*['"])\.\/([\w.-]+\.js)(['"])/g,
    (_match, before: string, name: string, after: string) => {
      const version = versionOf(name);
      if (version === undefined) throw new Error(`asset ${name} is imported before it is loaded: list it earlier`);
      return `${before}./${name}?v=${version}${after}`;
    },
  );
}

export function createAssetStore(): AssetStore {
  const assets = new Map<string, Asset>();
  const own = path.join(import.meta.dirname, 'assets');
  for (const name of [
    'site.css',
    'cards.css',
    'results.css',
    'tools.css',
    'mesh.css',
    'site.js',
    'home.js',
    'abuse-contact.js',
    'resolver.js',
    'tool.js',
    'chart.js',
    'stream-tool.js',
    'mesh-views.js',
    'mesh-tool.js',
    'json-tool.js',
    'tool-dns.js',
    'tool-whois.js',
    'tool-ssl.js',
    'tool-blacklist.js',
    'tool-rpki.js',
    'tool-abuse.js',
    'tool-mail.js',
    'tool-http.js',
    'ping.js',
    'traceroute.js',
    'mtr.js',
    'monitors.css',
    'monitor-detail.js',
    'monitor-form.js',
    'monitors.js',
    'docs.js',
    'icon.svg',
  ]) {
    const body = readFileSync(path.join(own, name));
    const source = name.endsWith('.js')
      ? Buffer.from(versionImports(body.toString('utf8'), (sibling) => assets.get(sibling)?.version))
      : body;
    assets.set(name, asset(source, name));
  }
  assets.set('world.svg', asset(Buffer.from(worldMapSvg()), 'world.svg'));
  const require = createRequire(import.meta.url);
  for (const name of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
    assets.set(name, asset(readFileSync(require.resolve(`swagger-ui-dist/${name}`)), name));
  }
  return {
    url(name) {
      const found = assets.get(name);
      if (!found) throw new Error(`unknown asset ${name}`);
      return `${ASSET_PREFIX}/${name}?v=${found.version}`;
    },
    get: (name) => assets.get(name),
    names: () => [...assets.keys()],
  };
}

function compressed(found: Asset, encoding: ContentCoding): Buffer {
  if (encoding === 'br') {
    found.brotli ??= brotliCompressSync(found.body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: found.body.length },
    });
    return found.brotli;
  }
  found.gzip ??= gzipSync(found.body, { level: 9 });
  return found.gzip;
}

/** A request's query or path parameters as plain entries, whatever the URL held (the site's routes validate neither). */
export function requestValues(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value)) : {};
}

export function registerAssetRoute(app: FastifyInstance, store: AssetStore): void {
  app.get(
    `${ASSET_PREFIX}/:name`,
    { schema: { hide: true }, config: { openQueryString: true } },
    (request: FastifyRequest, reply: FastifyReply) => {
      const name = String(requestValues(request.params).name);
      const found = store.get(name);
      if (!found) throw apiErrors.notFound('GET', `${ASSET_PREFIX}/${name}`);
      const versioned = requestValues(request.query).v === found.version;
      reply
        .type(found.type)
        .header('etag', found.etag)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache');
      if (ifNoneMatchHits(request.headers['if-none-match'], found.etag)) return reply.code(304).send();
      // Compressed once and kept, so the compression hook (http/compression.ts), which would
      // compress on every request, passes an answer that already has its encoding, and adds the
      // Vary of the uncompressed ones itself.
      const encoding = chooseCoding(request.headers['accept-encoding']);
      if (encoding === undefined || found.body.length < COMPRESSION_THRESHOLD_BYTES) return reply.send(found.body);
      return reply
        .header('content-encoding', encoding)
        .header('vary', 'Accept-Encoding')
        .send(compressed(found, encoding));
    },
  );
}
