import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { applyChanges, groupObject, mergeChanges, mergeSites, type PathChange, type PathResolution, type SiteFields, sameValue, siteFieldChanges, valueAtPath } from './site-merge.js';

// Random settings objects, and random edits of them on two sides made from one base: what the
// merge keeps, what it calls a conflict, and that each choice gives that side's value.

const NUM_RUNS = 300;

type Json = unknown;
type JsonObject = Record<string, Json>;

// Keys that need RFC 6901 escaping, and one that is a prototype's name elsewhere.
const keyArb = fc.constantFrom('greeting', 'enabled', 'theme', 'a/b', 'x~y', '~1', '__proto__', 'position');
const leafArb: fc.Arbitrary<Json> = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null), fc.constantFrom('', 'Hi', 'Hello'), fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }));

function objectOf(entries: ReadonlyArray<readonly [string, Json]>): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

const { value: valueArb } = fc.letrec<{ value: Json; object: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafArb, tie('object')),
  object: fc.uniqueArray(fc.tuple(keyArb, tie('value')), { maxLength: 4, selector: ([key]) => key }).map(objectOf),
}));
const objectArb = fc.uniqueArray(fc.tuple(keyArb, valueArb), { maxLength: 5, selector: ([key]) => key }).map(objectOf);

/** One edit of a group: set or remove a key path, or replace the whole text with something that is not an object. */
type Edit = { kind: 'set'; keys: string[]; value: Json } | { kind: 'remove'; keys: string[] } | { kind: 'text'; text: string };
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), keys: fc.array(keyArb, { minLength: 1, maxLength: 3 }), value: valueArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), keys: fc.array(keyArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.constantFrom('', '[1,2]', 'not json', '"text"') }) },
);

function edited(text: string, edits: readonly Edit[]): string {
  let current = text;
  for (const edit of edits) {
    if (edit.kind === 'text') {
      current = edit.text;
      continue;
    }
    const root = groupObject(current) ?? {};
    let node = root;
    for (const key of edit.keys.slice(0, -1)) {
      const next = Object.hasOwn(node, key) ? node[key] : undefined;
      if (typeof next === 'object' && next !== null && !Array.isArray(next)) node = next as JsonObject;
      else {
        const made: JsonObject = {};
        Object.defineProperty(node, key, { value: made, enumerable: true, writable: true, configurable: true });
        node = made;
      }
    }
    const last = edit.keys[edit.keys.length - 1] ?? 'greeting';
    if (edit.kind === 'remove') delete node[last];
    else Object.defineProperty(node, last, { value: edit.value, enumerable: true, writable: true, configurable: true });
    current = JSON.stringify(root);
  }
  return current;
}

function site(widget: string, branding: string, name = 'Docs'): SiteFields {
  return { name, color: '#123abc', ai_settings: '', email_settings: '', widget, portal: '', branding, public_theme: '', knowledge_sources: '', partner_settings: { enabled: false } };
}

/** Three sides: a base, and two edits of it (each side edits the widget and branding groups, and maybe the name). */
const sidesArb = fc
  .record({
    widget: objectArb,
    branding: objectArb,
    current: fc.record({ widget: fc.array(editArb, { maxLength: 3 }), branding: fc.array(editArb, { maxLength: 2 }), name: fc.option(fc.constantFrom('Docs', 'Help', 'Support')) }),
    proposed: fc.record({ widget: fc.array(editArb, { maxLength: 3 }), branding: fc.array(editArb, { maxLength: 2 }), name: fc.option(fc.constantFrom('Docs', 'Help', 'Support')) }),
  })
  .map(({ widget, branding, current, proposed }) => {
    const base = site(JSON.stringify(widget), JSON.stringify(branding));
    const side = (edits: typeof current) => site(edited(base.widget, edits.widget), edited(base.branding, edits.branding), edits.name ?? base.name);
    return { base, current: side(current), proposed: side(proposed) };
  });

/** Whether two paths are the same setting or one holds the other. */
function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function untouchedBy(path: string, changes: readonly PathChange[]): boolean {
  return changes.every((change) => !related(path, change.path));
}

/** Each merged group is valid JSON holding an object, or the text one side holds (not an object). */
function assertGroupsValid(merged: SiteFields, sides: readonly SiteFields[]): void {
  for (const field of ['widget', 'branding'] as const) {
    const text = merged[field];
    assert.ok(groupObject(text) !== undefined || sides.some((side) => side[field] === text), `the merged ${field} is neither an object nor a side's text: ${text}`);
  }
}

test('no setting that only one side changed is lost', () => {
  fc.assert(
    fc.property(sidesArb, ({ base, current, proposed }) => {
      const theirs = siteFieldChanges(base, current);
      const mine = siteFieldChanges(base, proposed);
      const { merged, conflicts } = mergeSites(base, current, proposed);
      for (const change of theirs) if (untouchedBy(change.path, mine)) assert.ok(sameValue(valueAtPath(merged, change.path), valueAtPath(current, change.path)), `their ${change.path} was lost`);
      for (const change of mine) if (untouchedBy(change.path, theirs)) assert.ok(sameValue(valueAtPath(merged, change.path), valueAtPath(proposed, change.path)), `my ${change.path} was lost`);
      // A conflict is only ever where both changed.
      for (const conflict of conflicts) assert.ok(!untouchedBy(conflict.path, theirs) && !untouchedBy(conflict.path, mine), `${conflict.path} is a conflict though one side left it alone`);
      assertGroupsValid(merged, [current, proposed, base]);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('the same change made on both sides is no conflict, and the merge is that change', () => {
  fc.assert(
    fc.property(sidesArb, ({ base, current }) => {
      const { merged, conflicts } = mergeSites(base, current, current);
      assert.deepEqual(conflicts, []);
      assert.deepEqual(merged, current);
    }),
    { numRuns: NUM_RUNS },
  );
});

function layoutOnlyChange(change: PathChange): boolean {
  if (typeof change.before !== 'string' || typeof change.after !== 'string') return false;
  const was = groupObject(change.before);
  const now = groupObject(change.after);
  return was !== undefined && now !== undefined && sameValue(was, now);
}

test('settling every conflict one way gives that side its value at every conflicting setting', () => {
  fc.assert(
    fc.property(sidesArb, ({ base, current, proposed }) => {
      const changes = siteFieldChanges(base, proposed);
      const { conflicts } = mergeChanges(current, changes);
      const settled = (side: PathResolution) => Object.fromEntries(conflicts.map((conflict) => [conflict.path, side]));
      const keepMine = mergeChanges(current, changes, settled('proposed'));
      assert.deepEqual(keepMine.conflicts, []);
      // Every setting the proposal changed holds the proposal's value.
      for (const change of changes) assert.ok(sameValue(valueAtPath(keepMine.merged, change.path), valueAtPath(proposed, change.path)), `${change.path} is not the proposal's`);
      const takeTheirs = mergeChanges(current, changes, settled('current'));
      assert.deepEqual(takeTheirs.conflicts, []);
      for (const conflict of conflicts) assert.ok(sameValue(valueAtPath(takeTheirs.merged, conflict.path), valueAtPath(current, conflict.path)), `${conflict.path} is not theirs`);
      // And every setting they changed, whatever the proposal changed around it, holds theirs.
      for (const change of siteFieldChanges(base, current)) assert.ok(sameValue(valueAtPath(takeTheirs.merged, change.path), valueAtPath(current, change.path)), `their ${change.path} was lost`);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('a diff applied to the site it was made from gives the other site', () => {
  fc.assert(
    fc.property(sidesArb, ({ base, proposed }) => {
      const changes = siteFieldChanges(base, proposed);
      const applied = applyChanges(base, changes);
      assert.deepEqual(siteFieldChanges(proposed, applied).filter((change) => !layoutOnlyChange(change)), []);
      // Merged onto an unchanged site it is the same, with nothing to settle.
      const merged = mergeChanges(base, changes);
      assert.deepEqual(merged.conflicts, []);
      assert.deepEqual(siteFieldChanges(proposed, merged.merged).filter((change) => !layoutOnlyChange(change)), []);
      // Paths are JSON Pointers into the group: each one finds the value the diff recorded.
      for (const change of changes) assert.ok(sameValue(valueAtPath(proposed, change.path), change.after));
    }),
    { numRuns: NUM_RUNS },
  );
});

test('settings are paths inside their group, escaped as RFC 6901 says; other groups are one path', () => {
  const base = site('{"greeting":"Hi","a/b":{"x~y":1},"list":[1,2]}', 'plain text');
  const after = site('{"greeting":"Hello","a/b":{"x~y":2},"list":[1,3],"new":true}', '{"logo":"x"}');
  assert.deepEqual(siteFieldChanges(base, after), [
    { path: '/widget/greeting', before: 'Hi', after: 'Hello' },
    { path: '/widget/a~1b/x~0y', before: 1, after: 2 },
    { path: '/widget/list', before: [1, 2], after: [1, 3] },
    { path: '/widget/new', after: true },
    { path: '/branding', before: 'plain text', after: '{"logo":"x"}' },
  ]);
});

test('a merged group keeps the current text key order and layout, new keys after', () => {
  const base = site('{\n  "a": 1,\n  "b": 2\n}', '');
  const current = site('{\n  "b": 3,\n  "a": 1\n}', '');
  const proposed = site('{"a":5,"b":2,"c":true}', '');
  const { merged, conflicts } = mergeSites(base, current, proposed);
  assert.deepEqual(conflicts, []);
  assert.equal(merged.widget, '{\n  "b": 3,\n  "a": 5,\n  "c": true\n}');
});

test('a group the other side left alone keeps the proposal text as written', () => {
  const base = site('{"a":1}', '');
  const proposed = site('{\n    "a": 2\n}', '');
  assert.equal(mergeSites(base, base, proposed).merged.widget, proposed.widget);
});
