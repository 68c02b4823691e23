// The figures issue #29 asks for, before and after: `node scripts/source-figures.ts [DIR]`.
// A line is a comment line when, trimmed, it starts a line comment or lies inside a block comment.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.argv[2] ?? process.cwd();

function files(dir: string, ends: RegExp): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...files(path, ends));
    else if (ends.test(name)) found.push(path);
  }
  return found;
}

function countLines(text: string): { code: number; comment: number; blank: number } {
  let code = 0;
  let comment = 0;
  let blank = 0;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      comment++;
      if (line.includes('*/')) inBlock = false;
    } else if (line === '') blank++;
    else if (line.startsWith('//')) comment++;
    else if (line.startsWith('/*')) {
      comment++;
      if (!line.includes('*/')) inBlock = true;
    } else code++;
  }
  return { code, comment, blank };
}

const sources = files(join(root, 'src'), /\.(ts|js|css)$/);
const totals = { code: 0, comment: 0, blank: 0 };
const long: string[] = [];
let casts = 0;
let handTyped = 0;
let promiseChecks = 0;
let maybePromise = 0;
let inFlightMaps = 0;
for (const file of sources) {
  const text = readFileSync(file, 'utf8');
  const counted = countLines(text);
  totals.code += counted.code;
  totals.comment += counted.comment;
  totals.blank += counted.blank;
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > 320) long.push(`${relative(root, file)} ${lines}`);
  casts += text.match(/request\.(query|params|body) as\b/g)?.length ?? 0;
  handTyped += text.match(/\b(Querystring|Params|Body)\s*:\s*[{A-Z]/g)?.length ?? 0;
  promiseChecks += text.match(/\bisPromise\(|instanceof Promise\b/g)?.length ?? 0;
  maybePromise += text.match(/\bMaybePromise\b/g)?.length ?? 0;
  if (!file.endsWith('in-flight.ts')) inFlightMaps += text.match(/new Map<[^\n]*Promise</g)?.length ?? 0;
}
const proseFiles = [join(root, 'README.md'), ...files(join(root, 'docs'), /\.md$/)];
const prose = proseFiles.map((f) => readFileSync(f, 'utf8').split('\n').length - 1);
const readme = prose[0] ?? 0;
const share = (totals.comment / (totals.code + totals.comment)) * 100;

console.log(`src files (.ts .js .css)      ${sources.length}`);
console.log(`src code lines                ${totals.code}`);
console.log(`src comment lines             ${totals.comment} (${share.toFixed(1)}% of code + comments)`);
console.log(`README lines                  ${readme}`);
console.log(`README + docs/ lines          ${prose.reduce((a, b) => a + b, 0)} (${proseFiles.length} files)`);
console.log(`request.query/params/body as  ${casts}`);
console.log(`hand-written route generics   ${handTyped}`);
console.log(`in-flight maps beside helper  ${inFlightMaps}`);
console.log(`isPromise/instanceof Promise  ${promiseChecks}`);
console.log(`MaybePromise mentions         ${maybePromise}`);
console.log(`src files over 320 lines      ${long.length}${long.length ? `: ${long.join(', ')}` : ''}`);
