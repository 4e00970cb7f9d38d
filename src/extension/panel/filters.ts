// The panel's search filters, kept per workspace (workspaceState): a project on one field keeps its venue or year
// range across sessions, another project starts with none. What is stored is re-checked when read (a hand-edited or
// older state is dropped field by field, never trusted).
import type * as vscode from 'vscode';
import { isFilters, type FiltersView } from '../../../webview/protocol.js';

const KEY = 'corpusLens.panelFilters';

/** The filters as kept: years as whole numbers, texts trimmed, empty fields left out, a reversed year range put right. */
export function normaliseFilters(f: FiltersView): FiltersView {
  const out: FiltersView = {};
  let [min, max] = [f.yearMin ?? null, f.yearMax ?? null];
  if (min != null && max != null && min > max) [min, max] = [max, min];
  if (min != null) out.yearMin = min;
  if (max != null) out.yearMax = max;
  for (const k of ['venue', 'section', 'paper'] as const) {
    const t = f[k]?.replace(/\s+/g, ' ').trim();
    if (t) out[k] = t;
  }
  return out;
}

export function loadFilters(state: vscode.Memento): FiltersView {
  const saved = state.get<unknown>(KEY);
  return isFilters(saved) ? normaliseFilters(saved) : {};
}

export async function saveFilters(state: vscode.Memento, f: FiltersView): Promise<void> {
  await state.update(KEY, normaliseFilters(f));
}
