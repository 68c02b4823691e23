import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { serviceArguments } from '../support/start-command.ts';

test("the systemd unit in docs/deployment.md starts node as package.json's start script does", () => {
  const doc = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
  const execStart = /^ExecStart=(\S+) (.+)$/m.exec(doc);
  assert.ok(execStart, 'an ExecStart line');
  assert.match(execStart[1] ?? '', /\/node_modules\/\.bin\/node$/, "the project's Node 24");
  assert.deepEqual((execStart[2] ?? '').split(' '), serviceArguments());
});
