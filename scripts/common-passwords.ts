// Makes src/accounts/common-passwords.txt, the list of common passwords sign-up refuses, from the
// `passwords` dictionary of @zxcvbn-ts/language-common (MIT, see common-passwords.LICENSE.txt):
// 49,233 passwords seen most often in leaks, most common first. Run by hand when updating the list
// (the service never downloads it):
//   npm pack @zxcvbn-ts/language-common@4.1.3 && tar xzf zxcvbn-ts-language-common-4.1.3.tgz
//   node scripts/common-passwords.ts package/src/passwords.json
// Only the entries sign-up would otherwise accept are kept: the shorter ones are refused by the
// length rule already (1,557 of the 49,233 are long enough; of its top 10,000, only 145 are).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PASSWORD_MIN_LENGTH } from '../src/accounts/passwords.ts';

const [source] = process.argv.slice(2);
if (!source) {
  console.error('usage: node scripts/common-passwords.ts <@zxcvbn-ts/language-common>/src/passwords.json');
  process.exit(2);
}
const passwords = JSON.parse(readFileSync(source, 'utf8')) as string[];
const kept = passwords
  .map((password) => password.normalize('NFKC').toLowerCase())
  .filter((password) => [...password].length >= PASSWORD_MIN_LENGTH && !/[\r\n]/.test(password));
const target = path.resolve(import.meta.dirname, '..', 'src', 'accounts', 'common-passwords.txt');
writeFileSync(target, `${[...new Set(kept)].join('\n')}\n`);
console.log(`${target}: ${kept.length} of ${passwords.length} passwords`);
