import assert from 'node:assert/strict';
import { test } from 'node:test';
import { vrpSetAgeNote } from '../../src/web/site/rpki-view.ts';

test("the VRP set's age on the pages: a stale set says so in words, a fresh one does not", () => {
  const at = Date.parse('2026-11-28T09:00:00Z');
  const fresh = vrpSetAgeNote({ at, ageMs: 40 * 60_000, generated: true, stale: false });
  assert.match(fresh, /VRPs generated 40 min ago by the validator/);
  assert.doesNotMatch(fresh, /Over a day old/);
  const stale = vrpSetAgeNote({ at, ageMs: 30 * 3_600_000, generated: true, stale: true });
  assert.match(stale, /VRPs generated 30 h ago by the validator .*<strong class="rpki-stale">Over a day old/);
  const installed = vrpSetAgeNote({ at, ageMs: 3 * 86_400_000, generated: false, stale: true });
  assert.match(installed, /VRPs installed 3 days ago .* does not say when it made them\. <strong class="rpki-stale">/);
  assert.equal(vrpSetAgeNote(undefined), '');
});
