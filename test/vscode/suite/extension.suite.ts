// Inside a real VS Code (code-server 1.100): the extension as authors use it, on the sample corpus that the
// harness indexed before VS Code started (user setting corpusLens.corpus.path).
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TextModel } from '../../../src/core/text/index.js';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import { INTERNAL_COMMANDS } from '../../../src/extension/command-table.js';
import type { HitView, ViewState } from '../../../webview/protocol.js';
import { snapshot } from './snapshot.js';
import { setUserSettings, waitFor } from './wait.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
const paperPath = path.join(workspace, 'paper.tex');

async function waitForAsync<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

function extension(): vscode.Extension<CorpusLensApi> {
  const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi> | undefined;
  assert.ok(ext, 'the extension under development is loaded');
  return ext;
}

async function openPaper(file = paperPath): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(file);
  return vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
}

/** The text the cursor was last moved into: results for another sentence (a late lookup) are not the answer. */
let probed: string | undefined;

function moveTo(editor: vscode.TextEditor, probe: string): void {
  probed = probe;
  const offset = editor.document.getText().indexOf(probe);
  assert.ok(offset >= 0, `probe ${probe} in the document`);
  const pos = editor.document.positionAt(offset + 3);
  editor.selection = new vscode.Selection(pos, pos);
}

/** The connection after a moment in which a late settings event could have dropped it. */
async function settle(api: CorpusLensApi) {
  await new Promise((r) => setTimeout(r, 500));
  return api.corpus.connection();
}

/** Runs "Find Similar Sentences" and waits for a final state newer than the one before. */
async function findSimilar(api: CorpusLensApi, kinds: ViewState['kind'][] = ['results']): Promise<ViewState> {
  const before = api.panel.current;
  await vscode.commands.executeCommand('corpusLens.findSimilar');
  return waitFor(`panel state ${kinds.join('/')}`, () => {
    const s = api.panel.current;
    if (s.kind === 'results' && probed && !s.query.clean.includes(probed)) return undefined;
    return s !== before && kinds.includes(s.kind) ? s : undefined;
  });
}

/** Clean sentences of every sample paper, by title, to check a hit's context against its source. */
function sampleSentences(extensionPath: string): Map<string, Array<{ clean: string; section: string | null }>> {
  const dir = path.join(extensionPath, 'samples', 'corpus');
  const byTitle = new Map<string, Array<{ clean: string; section: string | null }>>();
  for (const f of readdirSync(dir)) {
    const format = f.endsWith('.tex') ? 'latex' : f.endsWith('.md') ? 'markdown' : undefined;
    if (!format) continue;
    const model = new TextModel(readFileSync(path.join(dir, f), 'utf8'), format);
    const title = model.title();
    if (title)
      byTitle.set(
        title,
        model.sentences().map((s) => ({ clean: s.clean, section: s.section })),
      );
  }
  return byTitle;
}

describe('Corpus Lens in a real VS Code', function () {
  let api: CorpusLensApi;

  before(async () => {
    await openPaper();
    const ext = extension();
    await waitFor('activation on a LaTeX document', () => ext.isActive, 20_000);
    api = ext.exports;
  });

  it('registers the command table: every command package.json contributes, the ones its links run, and no other', async () => {
    const contributed = (extension().packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    // VS Code adds its own commands for each contributed view (`<view id>.focus`, `.open`, …): not the extension's.
    const views = Object.values(extension().packageJSON.contributes.views as Record<string, { id: string }[]>).flatMap((v) =>
      v.map((x) => x.id),
    );
    const registered = (await vscode.commands.getCommands(true)).filter(
      (id) => /^corpusLens\.[\w.]+$/.test(id) && !views.some((view) => id.startsWith(`${view}.`)),
    );
    assert.deepEqual([...registered].sort(), [...contributed, ...INTERNAL_COMMANDS].sort());
  });

  it('fills the panel with similar sentences whose context comes from the same paper and section', async () => {
    const editor = await openPaper();
    await vscode.commands.executeCommand('corpusLens.openPanel');
    await waitFor('the panel to show', () => api.panel.visible);
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    moveTo(editor, 'Novice authors often imitate the phrasing');
    const state = await waitFor('results after the cursor rests (auto trigger)', () =>
      api.panel.current.kind === 'results' ? api.panel.current : undefined,
    );
    assert.equal(state.kind, 'results');
    if (state.kind !== 'results') return;
    assert.match(state.query.clean, /^Novice authors often imitate the phrasing/);
    assert.equal(state.query.section, 'Introduction');
    assert.ok(state.hits.length >= 5, `${state.hits.length} hits`);
    const sources = sampleSentences(extension().extensionPath);
    let checked = 0;
    for (const hit of state.hits) {
      const sentences = sources.get(hit.paper.title ?? '');
      assert.ok(sentences, `hit from a sample paper: ${hit.paper.title}`);
      const i = sentences.findIndex((s) => s.clean === hit.sentence.text);
      if (i < 0) continue;
      checked++;
      const prev = sentences[i - 1];
      const next = sentences[i + 1];
      assert.equal(
        hit.previous?.text ?? null,
        prev && prev.section === sentences[i].section ? prev.clean : null,
        `previous of ${hit.sentence.text}`,
      );
      assert.equal(
        hit.next?.text ?? null,
        next && next.section === sentences[i].section ? next.clean : null,
        `next of ${hit.sentence.text}`,
      );
    }
    assert.ok(checked >= 3, `context checked on ${checked} hits`);
    // What the user sees: the real webview (a nested frame of the workbench) shows the hits.
    const seen = await waitForAsync('the webview to render the hits', async () => {
      const texts = await snapshot('panel-results');
      return texts.some((t) => t.includes(state.hits[0].sentence.text.slice(0, 40))) ? texts : undefined;
    });
    assert.ok(seen.some((t) => /similar sentences/i.test(t)));
  });

  it("searches from the panel's box and filters by year: the header names the filter, the cursor waits until the box is cleared", async () => {
    const editor = await openPaper();
    await vscode.commands.executeCommand('corpusLens.openPanel');
    await waitFor('the panel to show', () => api.panel.visible);
    const typedResults = (text: string, check: (hits: HitView[]) => boolean = () => true) =>
      waitFor(`results for the typed "${text}"`, () => {
        const s = api.panel.current;
        return s.kind === 'results' && s.query.typed && s.query.clean === text && check(s.hits) ? s : undefined;
      });
    // The webview's script is running (its toolbar is on screen) before the harness types into it.
    await waitForAsync(
      'the panel webview',
      async () => ((await snapshot('panel-search-ready')).some((t) => t.includes('What authors write next')) ? true : undefined),
      60_000,
    );
    try {
      await snapshot('panel-search-typed', 40_000, [
        { fill: '#cl-search', text: 'reciprocal rank fusion' },
        { press: '#cl-search', key: 'Enter' },
      ]);
      const searched = await typedResults('reciprocal rank fusion');
      assert.ok(searched.hits.length > 0);
      assert.ok(
        searched.hits.slice(0, 3).some((h) => /reciprocal rank fusion/i.test(h.sentence.text)),
        `a top hit names the searched words: ${searched.hits
          .slice(0, 3)
          .map((h) => h.sentence.text)
          .join(' | ')}`,
      );
      const years = searched.hits.map((h) => h.paper.year ?? 0);
      assert.ok(
        years.some((y) => y < 2022),
        `unfiltered, the hits span years before 2022: ${years}`,
      );
      // While the box holds text, moving the cursor looks nothing up.
      await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
      moveTo(editor, 'Novice authors often imitate the phrasing');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(api.panel.current.kind === 'results' && api.panel.current.query.clean, 'reciprocal rank fusion');

      // The year filter, typed in the panel's form: every hit is from 2022 on, and the header says so.
      await snapshot('panel-filter-typed', 40_000, [
        { click: '#cl-filters-toggle' },
        { fill: '#cl-filter-year-min', text: '2022' },
        { press: '#cl-filter-year-min', key: 'Enter' },
      ]);
      await waitFor('the year filter in force', () => api.lookups.filters.yearMin === 2022);
      const filtered = await typedResults('reciprocal rank fusion', (hits) => hits.every((h) => (h.paper.year ?? 0) >= 2022));
      assert.ok(filtered.hits.length > 0, 'hits from 2022 on');
      const screen = await waitForAsync('the header to name the filter', async () => {
        const texts = await snapshot('panel-search-year-filter');
        return texts.some((t) => t.includes('Filtered: since 2022') && t.includes('Sentences matching')) ? texts : undefined;
      });
      assert.ok(
        screen.some((t) => t.includes(filtered.hits[0].sentence.text.slice(0, 40))),
        'the filtered hits are on screen',
      );
      // Cleared: the cursor's sentence again, no filter.
      await snapshot('panel-filter-cleared', 40_000, [{ click: '#cl-filter-clear' }, { fill: '#cl-search', text: '' }]);
      await waitFor('no filter', () => Object.keys(api.lookups.filters).length === 0 && api.lookups.searchText === undefined);
      const back = await waitFor('the cursor sentence again', () => {
        const s = api.panel.current;
        return s.kind === 'results' && !s.query.typed && /^Novice authors often imitate/.test(s.query.clean) ? s : undefined;
      });
      assert.ok(back.hits.length > 0);
    } finally {
      // Whatever failed above, the suites after this one start unfiltered, following the cursor.
      api.lookups.filters = {};
      await api.lookups.search('');
    }
  });

  it('shows the top matches on hover, from the same cache', async () => {
    const editor = await openPaper();
    const offset = editor.document.getText().indexOf('Novice authors often imitate') + 10;
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      editor.document.uri,
      editor.document.positionAt(offset),
    );
    const text = hovers
      .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')))
      .join('\n')
      .replace(/&nbsp;/g, ' ')
      .replace(/\\(.)/g, '$1'); // corpus text is escaped as Markdown
    assert.match(text, /Corpus Lens/);
    assert.match(text, /Open all \d+ in the panel/);
    const state = api.panel.current;
    assert.equal(state.kind, 'results');
    if (state.kind === 'results')
      assert.ok(
        text.includes(state.hits[0].paper.title!.slice(0, 20)),
        `the hover names the best match, ${state.hits[0].paper.title}: ${text}`,
      );
  });

  it('cites a result once in the .bib, however often it is cited, and one undo removes one insertion', async () => {
    const editor = await openPaper();
    const state = api.panel.current;
    assert.equal(state.kind, 'results');
    if (state.kind !== 'results') return;
    const hit: HitView = state.hits[0];
    const end = editor.document.getText().indexOf(' as in Fig.'); // right after a word: LaTeX gets a tie
    const at = editor.document.positionAt(end);
    await vscode.commands.executeCommand('corpusLens.citeHit', hit, editor.document.uri.toString(), at);
    const bibPath = path.join(workspace, 'refs.bib');
    const bib1 = readFileSync(bibPath, 'utf8');
    const key = /@\w+\{([^,]+),/.exec(bib1)?.[1];
    assert.ok(key, 'an entry was added to refs.bib (named by \\bibliography{refs})');
    assert.ok(editor.document.getText().includes(`~\\cite{${key}}`), 'the citation is in the paper');
    // Another sentence (a second Cite in the same sentence would join the citation already there).
    await vscode.commands.executeCommand(
      'corpusLens.citeHit',
      hit,
      editor.document.uri.toString(),
      editor.document.positionAt(editor.document.getText().indexOf('Writers learn the conventions')),
    );
    const bib2 = readFileSync(bibPath, 'utf8');
    assert.equal(bib2.split(`{${key},`).length - 1, 1, 'still one entry for the paper');
    assert.equal(editor.document.getText().split(`\\cite{${key}}`).length - 1, 2);
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('undo');
    assert.equal(editor.document.getText().split(`\\cite{${key}}`).length - 1, 1, 'one undo removes the second insertion');
  });

  it('warns on a sentence that copies a corpus sentence, with a quick fix that cites it', async () => {
    const editor = await openPaper();
    const copied =
      'Phrase banks help novice authors find conventional wording for common rhetorical functions, but most of them are compiled by hand.';
    const where = editor.document.positionAt(editor.document.getText().indexOf('\\section{Method}'));
    await editor.edit((b) => b.insert(where, `${copied}\n\n`));
    moveTo(editor, 'Phrase banks help novice');
    await findSimilar(api);
    const diagnostic = await waitFor('the originality diagnostic', () =>
      vscode.languages.getDiagnostics(editor.document.uri).find((d) => d.source === 'Corpus Lens'),
    );
    assert.match(diagnostic.message, /^Closely matches Mining a Discipline-Specific Phrase Bank/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      editor.document.uri,
      diagnostic.range,
    );
    const fix = actions.find((a) => a.title.startsWith('Cite '));
    assert.ok(fix?.command, 'a quick fix cites the paper');
    // The quick fix cites it, and the sentence, now citing the paper it matches, is no longer flagged.
    const before = editor.document.getText();
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    assert.notEqual(editor.document.getText(), before, 'the quick fix changed the document');
    assert.match(editor.document.getText(), /Phrase banks help novice[^\n]*?\\cite\{[^}]+\}/);
    moveTo(editor, 'Phrase banks help novice');
    await findSimilar(api);
    assert.deepEqual(
      vscode.languages
        .getDiagnostics(editor.document.uri)
        .filter((d) => d.source === 'Corpus Lens')
        .map((d) => d.message),
      [],
      'a sentence citing the paper is not flagged',
    );
  });

  it('generates related work beside the paper (an evidence outline without an LLM), inserts it and appends its BibTeX', async () => {
    const editor = await openPaper();
    const at = editor.document.positionAt(editor.document.getText().indexOf('\\section{Results}'));
    editor.selection = new vscode.Selection(at, at);
    await vscode.commands.executeCommand('corpusLens.generateRelatedWork', { topic: 'retrieving example sentences for academic writing' });
    const draft = vscode.workspace.textDocuments.find((d) => d.isUntitled && d.getText().includes('Corpus Lens evidence outline'));
    assert.ok(draft, 'the result opens in an editor beside the paper');
    const keys = [...new Set([...draft.getText().matchAll(/\[([a-z]+\d{4}[a-z]*)\]/g)].map((m) => m[1]))];
    assert.ok(keys.length >= 3, `cites corpus papers: ${keys.join(', ')}`);
    await vscode.commands.executeCommand('corpusLens.insertRelatedWork');
    assert.ok(editor.document.getText().includes('% Corpus Lens evidence outline'), 'inserted at the cursor');
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('undo');
    assert.ok(!editor.document.getText().includes('% Corpus Lens evidence outline'), 'one undo removes the insertion');
    await vscode.commands.executeCommand('corpusLens.appendRelatedWorkBibtex');
    const bib = readFileSync(path.join(workspace, 'refs.bib'), 'utf8');
    for (const key of keys) assert.equal(bib.split(`{${key},`).length - 1, 1, `one entry for ${key}`);
  });

  it('shows the section structure of the corpus in its usual order, and inserts a heading as one undoable edit', async () => {
    const editor = await openPaper();
    assert.equal(api.structure.current.kind, 'idle', 'the view has not read the corpus before it was shown');
    await vscode.commands.executeCommand('corpusLens.structure.focus');
    const state = await waitFor('the section structure', () =>
      ['loaded', 'error', 'notConfigured'].includes(api.structure.current.kind) ? api.structure.current : undefined,
    );
    assert.equal(state.kind, 'loaded', JSON.stringify(state).slice(0, 300));
    const sections = api.structure.sections;
    // The 30 sample papers open with an abstract (\begin{abstract}, or `abstract:` in the Markdown front matter),
    // which the ingest files as the section "Abstract", then \section{Introduction} / ## Introduction, then Related Work;
    // they all end with Conclusion.
    assert.deepEqual(
      sections.slice(0, 3).map((s) => s.title),
      ['Abstract', 'Introduction', 'Related Work'],
    );
    assert.equal(sections.at(-1)?.title, 'Conclusion');
    const intro = api.structure.getTreeItem(sections[1]);
    // One count: the view's papers are the corpus's, as the panel and the status bar count them (issue 31.12).
    assert.equal(state.structure.papers, (await api.corpus.connection()).papers);
    assert.equal(intro.description, '✓ in your paper · 30/30 papers · 100%', 'paper.tex has an Introduction');
    // The sections paper.tex has (its abstract is an environment) are marked; the others not.
    await waitFor('the marks of paper.tex', () => api.structure.paperSections.has('abstract'));
    assert.ok(api.structure.paperSections.has('introduction'));
    assert.ok(!api.structure.paperSections.has('related work'));
    assert.doesNotMatch(String(api.structure.getTreeItem(sections[2]).description), /in your paper/);
    // Titles that say the same at the same place are one row with its titles (issue 36.1).
    const discussionRow = sections.find((s) => s.title === 'Discussion')!;
    assert.deepEqual(
      discussionRow.variants.map((v) => [v.title, v.papers]),
      [
        ['Discussion', 16],
        ['Discussion and Limitations', 8],
      ],
    );
    assert.equal(discussionRow.papers, 24);
    assert.deepEqual(
      api.structure.getChildren(discussionRow).map((c) => c.title),
      ['Discussion', 'Discussion and Limitations'],
    );
    // Insert Section Heading "Abstract" on a paper that has one: no second \begin{abstract}; the cursor goes to it.
    const abstractRow = sections.find((s) => s.key === 'abstract')!;
    const unchanged = editor.document.getText();
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    void vscode.commands.executeCommand('corpusLens.insertSectionHeading', abstractRow);
    await waitFor('the cursor on the abstract', () => vscode.window.activeTextEditor?.selection.active.line === 7);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(editor.document.getText(), unchanged, 'nothing inserted');
    assert.equal(editor.document.getText().split('\\begin{abstract}').length, 2, 'one abstract');
    const method = sections.find((s) => s.title === 'Method');
    assert.ok(method && method.papers < 30 && method.papers >= 20, `Method in ${method?.papers} papers`);
    const seen = await waitForAsync('the tree to show the titles', async () => {
      const texts = await snapshot('structure');
      const shown = texts.some(
        (t) => t.includes('Related Work') && t.includes('30/30 papers · 100%') && !t.includes('Reading the sections'),
      );
      return shown ? texts : undefined;
    });
    assert.ok(seen.some((t) => /Section Structure/i.test(t)));

    const paper = await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    const at = paper.document.positionAt(paper.document.getText().indexOf('\\section{Results}'));
    paper.selection = new vscode.Selection(at, at);
    const before = paper.document.getText();
    const discussion = sections.find((s) => s.title === 'Discussion');
    assert.ok(discussion, 'Discussion is a usual section of the sample corpus');
    await vscode.commands.executeCommand('corpusLens.insertSectionHeading', discussion);
    const after = editor.document.getText();
    assert.equal(
      after,
      before.replace('\\section{Results}', '\\section{Discussion}\n\\section{Results}'),
      'the heading goes on its own line at the cursor',
    );
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('undo');
    assert.equal(editor.document.getText(), before, 'one undo removes the heading');
  });

  it('ignores workspace settings that would send text or keys elsewhere', async () => {
    const dir = path.join(workspace, '.vscode');
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({
        'corpusLens.corpus.backend': 'postgres',
        'corpusLens.corpus.url': 'postgres://attacker@127.0.0.1:9/stolen',
        'corpusLens.embedding.provider': 'openai',
        'corpusLens.embedding.baseUrl': 'http://127.0.0.1:9/v1',
      }),
    );
    await new Promise((r) => setTimeout(r, 1500)); // let VS Code read the file
    const editor = await openPaper();
    moveTo(editor, 'Prior systems retrieve whole documents');
    const state = await findSimilar(api, ['results', 'error', 'notConfigured']);
    assert.equal(state.kind, 'results', `still the user's embedded corpus: ${JSON.stringify(state).slice(0, 200)}`);
    if (state.kind === 'results') assert.match(state.embedder, /offline/);
  });

  it('shows an error, not a hang, when the corpus is down', async () => {
    await setUserSettings('corpusLens', { 'corpus.backend': 'postgres', 'corpus.url': 'postgres://nobody@127.0.0.1:9/corpus' });
    try {
      const editor = await openPaper();
      moveTo(editor, 'Participants wrote faster');
      const state = await findSimilar(api, ['error']);
      assert.equal(state.kind, 'error');
      if (state.kind === 'error') assert.match(state.message, /127\.0\.0\.1:9|ECONNREFUSED|connect|reach/i);
    } finally {
      await setUserSettings('corpusLens', { 'corpus.backend': undefined, 'corpus.url': undefined });
    }
  });

  it('runs the embedded corpus in its own process; when it dies, the panel says so and the next lookup reopens it', async () => {
    // The connection to kill must be the one lookups use: one that no pending settings change is about to drop.
    let connection = await api.corpus.connection();
    for (let again = await settle(api); again !== connection; again = await settle(api)) connection = again;
    const pid = (connection.store as { pid?: number }).pid;
    assert.ok(pid && pid !== process.pid, `the corpus runs in a child process (${pid})`);
    const dropped = new Promise<void>((resolve) => {
      const d = api.corpus.onDidChange(() => {
        d.dispose();
        resolve();
      });
    });
    const editor = await openPaper();
    moveTo(editor, 'The similarity of two sentences is the cosine');
    process.kill(pid, 'SIGKILL');
    // A lookup that reaches the dead process shows the error (one line, no hang); one that starts after the
    // connection was dropped already reopens it.
    const first = await findSimilar(api, ['results', 'error']);
    if (first.kind === 'error') assert.match(first.message, /^the corpus process exited \(code null, signal SIGKILL\)/);
    await Promise.race([
      dropped,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the dead corpus connection was not dropped in 10 s')), 10_000)),
    ]);
    moveTo(editor, 'Participants wrote faster');
    const state = await findSimilar(api, ['results', 'error']);
    assert.equal(state.kind, 'results', JSON.stringify(state).slice(0, 300));
    const again = (await api.corpus.connection()).store as { pid?: number };
    assert.ok(again.pid && again.pid !== pid, 'a new corpus process');
  });

  it('does not open the embedded corpus a second time while an indexing run writes to it', async () => {
    await api.corpus.connection(); // open: the run below must not reuse it either
    const release = api.corpus.writingTo(api.corpus.embeddedPath());
    try {
      await api.corpus.drop(); // as an indexing run does, after marking the folder
      await assert.rejects(api.corpus.connection(), /being indexed/);
    } finally {
      release();
    }
    assert.ok((await api.corpus.connection()).sentences > 0, 'reopens once the run has ended');
  });

  it("opening a corpus paper's own file: its sentences match neither themselves nor their paper, in the panel or the Problems view", async () => {
    const file = path.join(extension().extensionPath, 'samples', 'corpus', 'falk2024quantization.tex');
    const title = 'How Much Recall Does Quantisation Cost? Product Quantisation for Sentence Embeddings';
    const editor = await openPaper(file);
    for (const probe of ['Quantisation replaces each vector with a compact code', 'Storing embeddings as 32-bit floats']) {
      moveTo(editor, probe);
      const state = await findSimilar(api);
      if (state.kind !== 'results') return assert.fail(state.kind);
      assert.ok(state.hits.length > 0, 'other papers still answer');
      assert.deepEqual(
        state.hits.filter((h) => h.paper.title === title).map((h) => h.sentence.text),
        [],
        'no hit from the paper itself',
      );
      assert.ok(
        state.hits.every((h) => h.similarity < 0.99),
        `no 1.00 self-match: ${state.hits[0]?.similarity}`,
      );
    }
    assert.deepEqual(
      vscode.languages
        .getDiagnostics(editor.document.uri)
        .filter((d) => d.source === 'Corpus Lens')
        .map((d) => d.message),
      [],
      'the Problems view flags nothing',
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('indexes this paper through the corpus process; its own lookups leave it out, another document finds it', async () => {
    const before = (await api.corpus.connection()).sentences;
    const editor = await openPaper();
    const title = 'Sentence-Level Retrieval for Writing Support';
    // A lookup while the run writes is refused as busy and the status bar shows that failure; the counts after the
    // write must replace it (CI once saw the status keep the failure). The lookup is made whenever the run is
    // still writing when this test looks.
    let done = false;
    const run = Promise.resolve(vscode.commands.executeCommand('corpusLens.indexThisPaper')).finally(() => (done = true));
    await waitFor('the run to start', () => api.corpus.indexing || done);
    if (!done) {
      moveTo(editor, 'Participants wrote faster');
      await findSimilar(api, ['error', 'results']);
    }
    await run;
    const after = await api.corpus.connection();
    assert.ok(after.sentences > before, `${before} → ${after.sentences} sentences`);
    // The status bar says the new size at once, before any lookup (issue 31.12: it kept the old count until a
    // reconnect).
    await waitFor(`the status bar to say ${after.sentences} sentences`, () =>
      api.status.text.includes(`${after.sentences.toLocaleString('en')} sentences`),
    );
    moveTo(editor, 'Participants wrote faster');
    const state = await findSimilar(api, ['results', 'error']);
    assert.equal(state.kind, 'results', JSON.stringify(state).slice(0, 300));
    if (state.kind !== 'results') return;
    assert.deepEqual(
      state.hits.filter((h) => h.paper.title === title).map((h) => h.sentence.text),
      [],
      'no hit from the paper itself',
    );
    assert.ok(!state.hits.some((h) => /^Participants wrote faster/.test(h.sentence.text)), 'the sentence is not its own top hit');
    // The sentence the originality test copied (saved by Index This Paper, with its citation) is the paper's own too.
    moveTo(editor, 'Phrase banks help novice');
    await findSimilar(api);
    const own = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.source === 'Corpus Lens' && d.message.includes(title));
    assert.deepEqual(
      own.map((d) => d.message),
      [],
      'the Problems view never flags the paper against itself',
    );
    // Lookups see the indexed paper from any other document.
    const other = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument({
        language: 'markdown',
        content: 'Participants wrote faster with the tool than without it.\n',
      }),
    );
    moveTo(other, 'Participants wrote faster');
    const elsewhere = await findSimilar(api);
    assert.ok(
      elsewhere.kind === 'results' && elsewhere.hits.some((h) => h.paper.title === title),
      'another document finds the indexed paper',
    );
  });
});
