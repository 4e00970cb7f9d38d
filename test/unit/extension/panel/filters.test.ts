// The panel's filters as kept per workspace: normalised when saved, re-checked when read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { loadFilters, normaliseFilters, saveFilters } from '../../../../src/extension/panel/filters.js';

/** workspaceState as VS Code gives it: get/update over a map. */
function memento(initial: Record<string, unknown> = {}): vscode.Memento & { data: Map<string, unknown> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    keys: () => [...data.keys()],
    get: <T>(key: string, fallback?: T) => (data.has(key) ? (data.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => void data.set(key, value),
  } as vscode.Memento & { data: Map<string, unknown> };
}

test('saved filters come back as set: texts trimmed, empty fields left out, a reversed year range put right', async () => {
  const state = memento();
  await saveFilters(state, { yearMin: 2023, yearMax: 2019, venue: '  ACL  ', section: '', paper: ' related   work ' });
  assert.deepEqual(loadFilters(state), { yearMin: 2019, yearMax: 2023, venue: 'ACL', paper: 'related work' });
  await saveFilters(state, { yearMin: null, yearMax: null, venue: '', section: '', paper: '' });
  assert.deepEqual(loadFilters(state), {}, 'Clear keeps nothing');
});

test('a stored value that is not filters (hand-edited, another version) reads as no filters', () => {
  assert.deepEqual(loadFilters(memento({ 'corpusLens.panelFilters': { yearMin: '2019' } })), {});
  assert.deepEqual(loadFilters(memento({ 'corpusLens.panelFilters': 'ACL' })), {});
  assert.deepEqual(loadFilters(memento({ 'corpusLens.panelFilters': { venue: 'x'.repeat(500) } })), {});
  assert.deepEqual(loadFilters(memento()), {});
});

test('normaliseFilters keeps a one-sided year range', () => {
  assert.deepEqual(normaliseFilters({ yearMin: 2020 }), { yearMin: 2020 });
  assert.deepEqual(normaliseFilters({ yearMax: 2018, section: 'Method' }), { yearMax: 2018, section: 'Method' });
});
