// The layering of the code, enforced: every import in src/ and webview/ is read with the TypeScript parser (static
// imports and re-exports, `import type`, dynamic `import()`, `import('x').T` type references, `require`) and
// checked against the table below. A failure names each offending edge as file:line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');

/**
 * The layers, lowest first. A unit may import its own layer and the layers below it, never one above: the
 * foundations know nothing of papers or corpora; text and the paper model know nothing of embeddings, BibTeX or
 * storage; the store keeps rows and answers lookups without knowing how they are searched, ingested or reviewed;
 * retrieval and ingestion stand on the store; grounding (is a sentence backed by its quotes) stands on those; related
 * work, Ask, the citation checker and the paper sources compose all of those; only
 * the VS Code extension and the CLI are applications. Same-layer imports are allowed unless FORBIDDEN, never in a cycle.
 * A unit is a folder of src/core (`store`) or a file directly in it (`abort`); a new one must be placed here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['abort', 'random', 'redact', 'open-target', 'disk-cache'],
  ['text', 'paper', 'net'],
  ['embed', 'bib', 'llm'],
  ['store'],
  ['retrieve', 'ingest', 'health'],
  ['grounding'],
  ['review', 'ask', 'sources', 'cite-check'],
  ['src/extension', 'src/cli'],
];
/**
 * Same-layer imports that are forbidden: Ask and the citation checker ground their prose with grounding/, as related
 * work does, and never reach into the related-work pipeline (nor it into them).
 */
const FORBIDDEN: readonly (readonly [from: string, to: string])[] = [
  ['ask', 'review'],
  ['review', 'ask'],
  ['cite-check', 'review'],
  ['cite-check', 'ask'],
];
/**
 * Units entered only through their index.ts by the other units of src/core: what a unit shows others is that file.
 * Not yet: the foundations (abort … store) and ingest are imported file by file, retrieve's index.ts holds the search
 * itself (a module it imports imports it back), and src/extension and src/cli import core files directly; so the
 * rule covers these units, for core → core imports (the rest is follow-up work).
 */
const SEALED = new Set(['grounding', 'review', 'ask', 'sources', 'cite-check']);
/** webview/ is the panel's browser bundle (webview/main.ts): nothing it reaches may need Node, VS Code or a corpus. */
const WEBVIEW_FORBIDDEN = ['src/core/store/', 'src/extension/', 'src/cli/'];

const RANK = new Map(LAYERS.flatMap((units, rank) => units.map((u) => [u, rank] as const)));
const NODE_BUILTINS = new Set(builtinModules);

interface Edge {
  /** Importing file, relative to the repository, with the import's line. */
  file: string;
  line: number;
  specifier: string;
  /** The imported file (relative), for a relative specifier; undefined for a package. */
  target?: string;
  /** A static import or re-export of values, evaluated when the module loads (not `import type`, not `import()`). */
  atLoad: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(m|c)?tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The file a relative specifier names ('./x.js' is ./x.ts under NodeNext; a folder is its index). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(ROOT, dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?js$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  return hit && relative(ROOT, hit).split(sep).join('/');
}

function importsOf(file: string, text = readFileSync(join(ROOT, file), 'utf8')): Edge[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (node: ts.Node, literal: ts.Expression | undefined, atLoad = false) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    const target = specifier.startsWith('.') ? (resolveRelative(file, specifier) ?? `?${specifier}`) : undefined;
    edges.push({ file, line, specifier, target, atLoad });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, !typeOnlyImport(node));
    else if (ts.isExportDeclaration(node)) add(node, node.moduleSpecifier, !node.isTypeOnly && !typeOnlyExport(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression, !node.isTypeOnly);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** The layer unit of a file: 'store' for src/core/store/x.ts, 'abort' for src/core/abort.ts, 'src/cli', 'webview'. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src' && parts[1] === 'core') return parts.length > 3 ? parts[2] : parts[2].replace(/\.(m|c)?tsx?$/, '');
  if (parts[0] === 'src') return `src/${parts[1]}`;
  return parts[0];
}

const at = (e: Edge) => `${e.file}:${e.line}`;
/** Fails with one offending edge a line (deepEqual would print each twice more). */
function none(found: string[], title: string): void {
  assert.ok(found.length === 0, `${title}:\n${found.join('\n')}`);
}
const isNodeBuiltin = (s: string) => s.startsWith('node:') || NODE_BUILTINS.has(s.split('/')[0]);

const FILES = [...sourceFiles('src'), ...sourceFiles('webview')];
const EDGES = FILES.flatMap((f) => importsOf(f));
const byFile = new Map<string, Edge[]>();
for (const e of EDGES) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);

/** Strongly connected components (Tarjan) of a graph given as adjacency sets; only those with a cycle. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

// The rules, each a function of an import graph, so that a mutated graph can show each one failing.

function upward(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    if (!e.target || !e.file.startsWith('src/')) return [];
    const from = unitOf(e.file);
    const to = unitOf(e.target);
    if (from === to) return [];
    if (to === 'webview')
      return from === 'src/extension' ? [] : [`${at(e)} ${from} → webview (${e.target}): only the extension hosts the panel`];
    const rf = RANK.get(from);
    const rt = RANK.get(to);
    if (rf === undefined || rt === undefined || rt <= rf) return [];
    return [`${at(e)} ${from} (layer ${rf}) → ${to} (layer ${rt}): ${e.target}`];
  });
}

function forbidden(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    if (!e.target?.startsWith('src/core/') || !e.file.startsWith('src/core/')) return [];
    const from = unitOf(e.file);
    const to = unitOf(e.target);
    return FORBIDDEN.some(([f, t]) => f === from && t === to) ? [`${at(e)} ${from} → ${to} (${e.target})`] : [];
  });
}

function pastIndex(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    if (!e.target?.startsWith('src/core/') || !e.file.startsWith('src/core/')) return [];
    const from = unitOf(e.file);
    const to = unitOf(e.target);
    if (from === to || !SEALED.has(to) || e.target === `src/core/${to}/index.ts`) return [];
    return [`${at(e)} ${from} → ${e.target}: import src/core/${to}/index.ts instead`];
  });
}

function boundaries(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    if (e.file.startsWith('src/core/') && e.specifier === 'vscode') return [`${at(e)} src/core imports 'vscode'`];
    const from = unitOf(e.file);
    const to = e.target && unitOf(e.target);
    if ((from === 'src/cli' && to === 'src/extension') || (from === 'src/extension' && to === 'src/cli'))
      return [`${at(e)} ${from} → ${to}`];
    return [];
  });
}

function unitCycles(edges: readonly Edge[]): string[] {
  const inCore = edges.filter(
    (e) => e.target?.startsWith('src/core/') && e.file.startsWith('src/core/') && unitOf(e.file) !== unitOf(e.target),
  );
  const graph = new Map<string, Set<string>>();
  for (const e of inCore) {
    const from = unitOf(e.file);
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(unitOf(e.target!));
  }
  return cycles(graph).map((scc) => {
    const inside = inCore.filter((e) => scc.includes(unitOf(e.file)) && scc.includes(unitOf(e.target!)));
    return `cycle ${scc.join(' ↔ ')}:\n${inside.map((e) => `  ${at(e)} ${unitOf(e.file)} → ${unitOf(e.target!)} (${e.target})`).join('\n')}`;
  });
}

function moduleCycles(edges: readonly Edge[]): string[] {
  // Type-only imports are erased and dynamic import() runs later, so they cannot make a module see another
  // half-initialised; the static value imports can.
  const runtime = edges.filter((e) => e.atLoad && e.file.startsWith('src/core/') && e.target?.startsWith('src/core/'));
  const graph = new Map<string, Set<string>>();
  for (const e of runtime) {
    if (!graph.has(e.file)) graph.set(e.file, new Set());
    graph.get(e.file)!.add(e.target!);
  }
  return cycles(graph).map(
    (scc) =>
      `cycle:\n${runtime
        .filter((e) => scc.includes(e.file) && scc.includes(e.target!))
        .map((e) => `  ${at(e)} → ${e.target}`)
        .join('\n')}`,
  );
}

function webviewReach(files: readonly string[], edgesOf: (file: string) => readonly Edge[]): string[] {
  const bad: string[] = [];
  for (const start of files.filter((f) => f.startsWith('webview/'))) {
    // Everything the file pulls in, as the bundler would, with the chain that brought it there.
    const seen = new Map<string, string[]>([[start, []]]);
    const queue = [start];
    while (queue.length) {
      const file = queue.shift()!;
      for (const e of edgesOf(file)) {
        const chain = [...seen.get(file)!, at(e)];
        if (!e.target && (isNodeBuiltin(e.specifier) || e.specifier === 'vscode'))
          bad.push(`${chain.join(' → ')} imports '${e.specifier}'`);
        if (!e.target || seen.has(e.target)) continue;
        if (WEBVIEW_FORBIDDEN.some((p) => e.target!.startsWith(p))) {
          bad.push(`${chain.join(' → ')} reaches ${e.target}`);
          continue;
        }
        seen.set(e.target, chain);
        queue.push(e.target);
      }
    }
  }
  return [...new Set(bad)];
}

describe('layers', () => {
  test('the parser sees the imports: every relative import resolves to a file, and the graph is not empty', () => {
    const unresolved = EDGES.filter((e) => e.target?.startsWith('?')).map((e) => `${at(e)} ${e.specifier}`);
    none(unresolved, 'imports naming no file');
    // Guards the reader itself: a parser that silently found nothing would pass every rule below.
    assert.ok(FILES.length > 100 && EDGES.length > 500, `read ${FILES.length} files, ${EDGES.length} imports`);
    assert.ok(
      EDGES.some((e) => e.file === 'src/extension/load.ts' && e.target === 'src/extension/heavy.ts'),
      'import() types are read',
    );
  });

  test('every unit of src/core is placed in the layer table', () => {
    const unplaced = [...new Set(FILES.filter((f) => f.startsWith('src/')).map(unitOf))].filter((u) => !RANK.has(u));
    none(unplaced, 'units missing from LAYERS in test/unit/layers.test.ts');
    const unknown = [...FORBIDDEN.flat(), ...SEALED].filter((u) => !RANK.has(u));
    none(unknown, 'FORBIDDEN or SEALED name a unit LAYERS does not place');
  });

  test('no import from a lower layer to a higher one', () => none(upward(EDGES), 'imports going up the layers'));

  test('no forbidden import within a layer: ask, review and cite-check do not import each other (cite-check → grounding)', () =>
    none(forbidden(EDGES), 'forbidden imports within a layer'));

  test(`a sealed unit of src/core (${[...SEALED].join(', ')}) is imported through its index.ts only`, () =>
    none(pastIndex(EDGES), "imports reaching past another unit's index.ts"));

  test('src/core never imports vscode, and the two applications never import each other', () =>
    none(boundaries(EDGES), 'imports across the boundaries of the applications'));

  test('no import cycle between the units of src/core', () => none(unitCycles(EDGES), 'import cycles between units'));

  test('no import cycle between the modules of src/core (imports evaluated at load time)', () =>
    none(moduleCycles(EDGES), 'import cycles between modules'));

  test('webview/ reaches only browser code: no Node builtin, no vscode, no store, no extension or CLI module', () =>
    none(
      webviewReach(FILES, (f) => byFile.get(f) ?? []),
      'webview/ must hold only browser code',
    ));
});

// Each rule can fail: a mutant file (source text parsed as if it sat at that path, its imports resolved against the
// real tree) added to the real graph makes the rule report the mutant's import, and only that.
describe('layers: each rule reports an import that breaks it', () => {
  const mutant = (file: string, text: string) => [...EDGES, ...importsOf(file, text)];
  const reports = (found: string[], file: string) => {
    const mine = found.filter((f) => f.includes(file));
    assert.ok(mine.length > 0, `no report names ${file}:\n${found.join('\n')}`);
    assert.equal(found.length - mine.length, 0, `reports on the real tree:\n${found.join('\n')}`);
  };

  test('upward: store importing retrieve', () =>
    reports(
      upward(mutant('src/core/store/mutant.ts', "import { keywordSearch } from '../retrieve/index.js';")),
      'src/core/store/mutant.ts',
    ));

  test('upward: grounding importing review', () =>
    reports(
      upward(mutant('src/core/grounding/mutant.ts', "import { runReview } from '../review/index.js';")),
      'src/core/grounding/mutant.ts',
    ));

  test('forbidden: ask → review, review → ask, cite-check → review, cite-check → ask', () => {
    for (const [from, to] of FORBIDDEN) {
      const file = `src/core/${from}/mutant.ts`;
      reports(forbidden(mutant(file, `import type * as x from '../${to}/index.js';`)), file);
    }
  });

  test("past an index.ts: review importing grounding's support.ts, cite-check importing ask's types.ts", () => {
    reports(
      pastIndex(mutant('src/core/review/mutant.ts', "import { assessSupport } from '../grounding/support.js';")),
      'src/core/review/mutant.ts',
    );
    reports(
      pastIndex(mutant('src/core/cite-check/mutant.ts', "import type { AskTurn } from '../ask/types.js';")),
      'src/core/cite-check/mutant.ts',
    );
    // and through the index the same import is fine
    none(pastIndex(mutant('src/core/review/mutant.ts', "import { assessSupport } from '../grounding/index.js';")), 'index import reported');
  });

  test('boundaries: core importing vscode, the CLI importing the extension', () => {
    reports(boundaries(mutant('src/core/text/mutant.ts', "import * as vscode from 'vscode';")), 'src/core/text/mutant.ts');
    reports(boundaries(mutant('src/cli/mutant.ts', "import { activate } from '../extension/extension.js';")), 'src/cli/mutant.ts');
  });

  test('cycles: a unit circle (grounding → review → grounding) and a module circle at load time', () => {
    // grounding/mutant.ts → review (which imports grounding): a circle of units; a value import of
    // grounding/index.ts from a module that index.ts would import closes a circle of modules.
    reports(
      unitCycles(mutant('src/core/grounding/mutant.ts', "import { runReview } from '../review/index.js';")),
      'src/core/grounding/mutant.ts',
    );
    const extra = importsOf('src/core/grounding/support.ts', "import { checkReview } from './index.js';");
    const found = moduleCycles([...EDGES, ...extra]);
    assert.ok(
      found.some((f) => f.includes('src/core/grounding/support.ts:1 → src/core/grounding/index.ts')),
      found.join('\n') || 'no cycle reported',
    );
    // type-only imports are erased: no circle at load time
    none(
      moduleCycles([...EDGES, ...importsOf('src/core/grounding/support.ts', "import type { CheckInput } from './index.js';")]),
      'type import reported',
    );
  });

  test('webview: a panel module importing the store', () => {
    const file = 'webview/mutant.ts';
    const edges = importsOf(file, "import { openStore } from '../src/core/store/index.js';");
    const found = webviewReach([file], (f) => (f === file ? edges : (byFile.get(f) ?? [])));
    assert.ok(
      found.some((f) => f.includes('webview/mutant.ts:1') && f.includes('src/core/store/index.ts')),
      found.join('\n') || 'nothing reported',
    );
  });
});

/** `import type {…}` or an import whose every named binding is `type`: erased at run time. */
function typeOnlyImport(s: ts.ImportDeclaration): boolean {
  const c = s.importClause;
  if (!c) return false; // `import './x.js'`: a side effect
  if (c.isTypeOnly) return true;
  if (c.name) return false;
  const b = c.namedBindings;
  return !!b && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((el) => el.isTypeOnly);
}

function typeOnlyExport(s: ts.ExportDeclaration): boolean {
  const c = s.exportClause;
  return !!c && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((el) => el.isTypeOnly);
}
