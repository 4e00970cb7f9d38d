// The "Section Structure" view: the corpus's usual section titles in their usual order and how many papers use each
// (CorpusStudio's ordered distribution of section titles), to help outline a paper. Titles that say the same thing
// at the same place are one expandable row listing them with their counts (core/retrieve/structure.ts,
// clusterTitles). A native tree: themed and keyboard accessible as it is. It reads the corpus only when the view is
// shown (VS Code asks for its items only then), reloads when the corpus changes, marks the rows the paper being
// written already has, and offers "Insert Section Heading" for it.
import * as vscode from 'vscode';
import type { SectionStat, SectionStructure } from '../../core/retrieve/structure.js';
import { NotConfiguredError, type CorpusService } from '../corpus/corpus.js';
import { documentModel, formatOf } from '../shared/documents.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { heavy } from '../load.js';

export const REFRESH_STRUCTURE_COMMAND = 'corpusLens.refreshStructure';
export const INSERT_SECTION_HEADING_COMMAND = 'corpusLens.insertSectionHeading';
const ITEM_CONTEXT = 'corpusLens.section';

export type StructureState =
  /** Not read yet (the view has not been shown, or the corpus changed while it was hidden). */
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'loaded'; structure: SectionStructure; corpus: string }
  | { kind: 'notConfigured'; reason: string }
  | { kind: 'error'; message: string };

/** A title of a clustered row (its child in the tree). */
export interface SectionVariant {
  variantOf: SectionStat;
  key: string;
  title: string;
  papers: number;
}

export type StructureItem = SectionStat | SectionVariant;

const isVariant = (x: StructureItem): x is SectionVariant => 'variantOf' in x;

/** The tree's data: the rows (a row of several titles expands to them). */
export class StructureProvider implements vscode.TreeDataProvider<StructureItem>, vscode.Disposable {
  private state: StructureState = { kind: 'idle' };
  private view: vscode.TreeView<StructureItem> | undefined;
  /** Row key → offset of the section in the paper being written that is that row (see markPaper). */
  private inPaper = new Map<string, number>();
  private paperTimer: NodeJS.Timeout | undefined;
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(
    private readonly corpus: CorpusService,
    private readonly log: vscode.LogOutputChannel,
    private readonly editors?: Pick<PaperEditors, 'current'>,
  ) {
    this.disposables.push(
      corpus.onDidChange(() => this.invalidate()),
      corpus.onDidFinishIndexing(() => this.invalidate()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('corpusLens.corpus')) this.invalidate();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.schedulePaperMarks()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === this.editors?.current()?.document) this.schedulePaperMarks();
      }),
    );
  }

  /**
   * Where the paper being written has the row `key` (the offset of its heading, or of its LaTeX abstract), or
   * undefined: Insert Section Heading goes there instead of adding a second one.
   */
  inCurrentPaper(key: string): number | undefined {
    this.markPaper();
    return this.inPaper.get(key);
  }

  /** The rows the paper being written has, by key (what the tree marks). */
  get paperSections(): ReadonlySet<string> {
    return new Set(this.inPaper.keys());
  }

  private schedulePaperMarks(): void {
    if (this.state.kind !== 'loaded') return;
    clearTimeout(this.paperTimer);
    this.paperTimer = setTimeout(() => {
      const before = [...this.inPaper.keys()].join('\u0000');
      this.markPaper();
      if ([...this.inPaper.keys()].join('\u0000') !== before) this.changed.fire();
    }, 300);
  }

  /** Reads which rows the paper being written has (its headings, its abstract environment). */
  private markPaper(): void {
    const doc = this.editors?.current()?.document;
    const format = doc ? formatOf(doc) : undefined;
    if (this.state.kind !== 'loaded' || !doc || !format) {
      this.inPaper = new Map();
      return;
    }
    const model = documentModel(doc);
    this.inPaper = heavy().sectionsInPaper(this.state.structure, { headings: model.headings(), text: doc.getText(), format });
  }

  get current(): StructureState {
    return this.state;
  }

  /** The titles shown, in order (empty until loaded). */
  get sections(): readonly SectionStat[] {
    return this.state.kind === 'loaded' ? this.state.structure.sections : [];
  }

  attach(view: vscode.TreeView<StructureItem>): void {
    this.view = view;
    this.disposables.push(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.state.kind === 'idle') void this.load();
      }),
    );
    this.render();
  }

  getChildren(element?: StructureItem): StructureItem[] {
    if (element) {
      if (isVariant(element) || element.variants.length < 2) return [];
      return element.variants.map((v) => ({ variantOf: element, ...v }));
    }
    // VS Code asks for the items only while the view is visible: the first time is when the corpus is read.
    if (this.state.kind === 'idle') void this.load();
    return [...this.sections];
  }

  getTreeItem(x: StructureItem): vscode.TreeItem {
    const total = this.state.kind === 'loaded' ? this.state.structure.papers : 0;
    if (isVariant(x)) {
      const item = new vscode.TreeItem(x.title, vscode.TreeItemCollapsibleState.None);
      item.id = `${x.variantOf.key}\u0000${x.key}`;
      item.description = `${x.papers} paper${x.papers === 1 ? '' : 's'}`;
      item.contextValue = ITEM_CONTEXT;
      item.tooltip = `"${x.title}" heads this part of ${x.papers} of ${total} papers`;
      item.accessibilityInformation = { label: `${x.title}, ${x.papers} papers`, role: 'treeitem' };
      return item;
    }
    const s = x;
    const pct = Math.round(s.share * 100);
    const clustered = s.variants.length > 1;
    const have = this.inPaper.has(s.key);
    const item = new vscode.TreeItem(s.title, clustered ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = s.key;
    item.description = `${have ? '✓ in your paper · ' : ''}${s.papers}/${total} papers · ${pct}%${clustered ? ` · ${s.variants.length} titles` : ''}`;
    if (have) item.iconPath = new vscode.ThemeIcon('check');
    item.contextValue = ITEM_CONTEXT;
    const spellings = s.spellings.map((v) => `"${v.text}" ×${v.count}`).join(', ');
    const titles = clustered ? `\nTitles: ${s.variants.map((v) => `${v.title} (${v.papers})`).join(', ')}` : '';
    item.tooltip =
      `${s.title}${have ? ' (your paper has it)' : ''}\nIn ${s.papers} of ${total} papers (${pct}%), typically ` +
      `${Math.round(s.position * 100)}% of the way through a paper.${titles}\nSpellings merged: ${spellings}`;
    item.accessibilityInformation = {
      label: `${s.title}, in ${s.papers} of ${total} papers, ${pct} percent${have ? ', your paper has it' : ''}${clustered ? `, ${s.variants.length} titles` : ''}`,
      role: 'treeitem',
    };
    return item;
  }

  /** Reads the corpus again now (the refresh button). */
  async refresh(): Promise<void> {
    clearTimeout(this.timer);
    if (this.corpus.indexing) {
      this.render('The corpus is being indexed; this view updates when indexing ends.');
      return;
    }
    await this.load();
  }

  /**
   * The corpus changed (settings, a new connection, indexing): reload if the view is showing, else forget the data
   * so that showing the view reads it again. Never while indexing: the embedded corpus has one writer, and indexing
   * drops the connection when it starts; the end of indexing invalidates again.
   */
  private invalidate(): void {
    if (this.state.kind === 'idle') return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.corpus.indexing) return;
      if (this.view?.visible) void this.load();
      else this.setState({ kind: 'idle' });
    }, 300);
  }

  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.setState({ kind: 'loading' });
    let next: StructureState;
    try {
      const connection = await this.corpus.connection();
      const store = connection.store;
      if (typeof store.sectionTitles !== 'function') throw new Error('this corpus connection cannot list sections');
      // The corpus's own paper count, read now: the one the panel, the status bar and the log say (not the papers
      // with titled sections, which the view said before).
      const [rows, counts] = await Promise.all([store.sectionTitles(), store.counts()]);
      const structure = heavy().sectionStructure(rows, { cluster: true, corpusPapers: counts.papers });
      next = { kind: 'loaded', structure, corpus: connection.name };
    } catch (err) {
      if (err instanceof NotConfiguredError) next = { kind: 'notConfigured', reason: err.message };
      else {
        next = { kind: 'error', message: err instanceof Error ? err.message : String(err) };
        this.log.warn(`section structure: ${next.message}`);
      }
    }
    if (generation === this.generation) this.setState(next);
  }

  private setState(state: StructureState): void {
    this.state = state;
    this.markPaper();
    this.render();
    this.changed.fire();
  }

  /** The view's message and description for the state. */
  private render(notice?: string): void {
    if (!this.view) return;
    const s = this.state;
    this.view.description = s.kind === 'loaded' ? `${s.corpus} · ${s.structure.papers} papers` : undefined;
    this.view.message =
      notice ??
      (s.kind === 'loading'
        ? 'Reading the sections of the corpus…'
        : s.kind === 'notConfigured'
          ? `No corpus to read: ${s.reason}. Use "Corpus Lens: Index Folder…" or "Corpus Lens: Connect to Corpus…".`
          : s.kind === 'error'
            ? `Could not read the section structure: ${s.message}`
            : s.kind === 'loaded' && !s.structure.sections.length
              ? 'No section title occurs in two or more papers of this corpus.'
              : undefined);
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.paperTimer);
    this.generation++;
    for (const d of this.disposables) d.dispose();
  }
}

/** Inserts the heading on a line of its own at the editor's cursor, as one undoable edit; focuses the editor. */
export async function insertSectionHeading(editor: vscode.TextEditor, title: string): Promise<void> {
  if (!vscode.window.visibleTextEditors.includes(editor)) {
    const selection = editor.selection;
    editor = await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, selection });
  }
  const doc = editor.document;
  const format = formatOf(doc) === 'markdown' ? 'markdown' : 'latex';
  const at = editor.selection.active;
  const line = doc.lineAt(at.line).text;
  const before = line.slice(0, at.character).trim() ? '\n' : '';
  const after = line.slice(at.character).trim() ? '\n' : '';
  const ok = await editor.edit((b) => b.insert(at, `${before}${heavy().sectionHeading(format, title)}${after}`));
  if (!ok) throw new Error(`could not insert the heading into ${doc.fileName}`);
  await vscode.window.showTextDocument(doc, { viewColumn: editor.viewColumn, preserveFocus: false });
}
