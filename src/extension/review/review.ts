// "Corpus Lens: Generate Related Work": the core pipeline (src/core/review) behind a topic prompt, a
// cancellable progress notification, one draft editor beside the paper that the sections stream into (reused by
// the next run while it is open), and its actions: insert at the cursor (of the paper editor the action is run
// from, at that moment) as one undoable edit that also adds the cited papers' BibTeX entries the .bib lacks, as
// Cite does; append the entries alone; show the last draft again (the notification is not its only way back).
import * as vscode from 'vscode';
import type { ReviewResult } from '../../core/review/index.js';
import { heavy } from '../load.js';
import { appendEntry, openIfExists, resolveBibFile } from '../cite/cite.js';
import type { CorpusService } from '../corpus/corpus.js';
import { formatOf } from '../shared/documents.js';
import { blockInsertion } from '../../core/text/block.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';
import { configuredChat } from '../shared/chat.js';
import { describeFilters, hasQuestionFilters } from '../../core/retrieve/question-filters.js';
import { costLine, estimateLine } from '../../core/grounding/cost.js';

interface LastResult {
  result: ReviewResult;
  paper: vscode.Uri;
}

export class RelatedWork {
  private last: LastResult | undefined;
  /** The draft editor's document, reused by the next run while it is open. */
  private draft: vscode.TextDocument | undefined;

  constructor(
    private readonly corpus: CorpusService,
    private readonly secrets: Secrets,
    private readonly log: vscode.LogOutputChannel,
    /** The paper editor the user is in (the active one, else the last paper editor used). */
    private readonly paperEditor: () => vscode.TextEditor | undefined,
  ) {}

  /** Asks for the topic (prefilled; `topic` skips the question), runs the pipeline, shows the result beside. */
  async generate(editor: vscode.TextEditor, topic?: string): Promise<void> {
    const doc = editor.document;
    const format = formatOf(doc) === 'markdown' ? 'markdown' : 'latex';
    const review = heavy();
    topic ??= await vscode.window.showInputBox({
      title: 'Corpus Lens: related work on…',
      prompt: 'The topic to survey (prefilled with the paper’s title and abstract)',
      value: review.defaultTopic(doc.getText(), format),
      ignoreFocusOut: true,
    });
    if (!topic) return;
    const settings = readSettings(doc.uri);
    const { store, embedder } = await this.corpus.connection();
    const chat = await configuredChat(this.secrets, doc.uri);
    const bibUri = await resolveBibFile(doc, format, settings.citation.bibFile);
    const bibText = (await openIfExists(bibUri))?.getText() ?? '';
    const outputEditor = await this.draftEditor(format, true);
    const output = outputEditor.document;
    const stream = new StreamWriter(outputEditor);
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Corpus Lens: related work${chat ? '' : ' (evidence outline: no LLM configured)'}`,
        cancellable: true,
      },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        let step = '';
        let ahead = '';
        try {
          return await review.runReview({
            store,
            embedder,
            chat,
            topic,
            format,
            citeCommand: settings.citation.command,
            unsupported: settings.review.unsupported,
            provenance: settings.review.provenance,
            tables: settings.review.tables,
            existingBib: await review.BibIndex.read(bibText),
            signal: controller.signal,
            // The cost ahead (told at the start, after retrieval and after the plan) stays beside the step.
            onEstimate: (e) => {
              ahead = ` (${estimateLine(e)})`;
              progress.report({ message: `${step}${ahead}` });
            },
            onProgress: (e) => {
              step = `${e.index}/${e.total} ${e.message}`;
              progress.report({ message: `${step}${ahead}`, increment: e.phase === 'done' ? 100 / e.total : 0 });
            },
            onToken: (_section, title, delta) => stream.write(title, delta),
          });
        } catch (err) {
          if (review.isAbortError(err)) return undefined;
          throw err;
        }
      },
    );
    await stream.flush();
    if (!result) return void vscode.window.showInformationMessage('Corpus Lens: related work cancelled.');
    await outputEditor.edit((b) =>
      b.replace(new vscode.Range(new vscode.Position(0, 0), output.positionAt(output.getText().length)), draftText(result, format)),
    );
    this.last = { result, paper: doc.uri };
    this.log.info(
      `related work: ${JSON.stringify({ mode: result.mode, cited: result.cited.length, check: result.check, tokens: result.trace.total.tokens, decomposition: result.decomposition })}`,
    );
    void this.offerActions(); // the notification stays until the author picks an action
  }

  /**
   * The draft editor beside the paper: the open draft of an earlier run (emptied when `empty`), else a new Untitled
   * document. A draft the author closed, or one of the other format, is not reused.
   */
  private async draftEditor(format: 'latex' | 'markdown', empty: boolean): Promise<vscode.TextEditor> {
    const language = format === 'latex' ? 'latex' : 'markdown';
    const open = this.draft && !this.draft.isClosed && this.draft.languageId === language ? this.draft : undefined;
    const doc = open ?? (await vscode.workspace.openTextDocument({ language, content: '' }));
    this.draft = doc;
    const visible = vscode.window.visibleTextEditors.find((e) => e.document === doc);
    const editor = await vscode.window.showTextDocument(doc, {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.Beside,
      preview: false,
      preserveFocus: true,
    });
    if (empty && doc.getText())
      await editor.edit((b) => b.delete(new vscode.Range(new vscode.Position(0, 0), doc.positionAt(doc.getText().length))));
    return editor;
  }

  /** "Show Last Related Work": the last draft in its editor again (re-created if its editor was closed). */
  async showLast(): Promise<void> {
    if (!this.last)
      return void vscode.window.showInformationMessage(
        'Corpus Lens: no related work generated in this window yet: run Generate Related Work.',
      );
    const format = this.last.result.format === 'markdown' ? 'markdown' : 'latex';
    const reopened = !this.draft || this.draft.isClosed;
    const editor = await this.draftEditor(format, false);
    if (reopened || !editor.document.getText().trim())
      await editor.edit((b) => b.insert(new vscode.Position(0, 0), draftText(this.last!.result, format)));
    await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preview: false });
    void this.offerActions();
  }

  private async offerActions(): Promise<void> {
    const insert = 'Insert at Cursor';
    const bib = 'Append BibTeX';
    if (!this.last) return;
    const choice = await vscode.window.showInformationMessage(
      `Corpus Lens: ${describeResult(this.last.result)}. The draft is in the editor beside; Insert at Cursor also adds its BibTeX entries (Show Last Related Work brings it back).`,
      insert,
      bib,
    );
    if (choice === insert) await this.insert();
    else if (choice === bib) {
      await this.appendBibtex();
      void this.offerActions(); // Insert stays one click away
    }
  }

  /**
   * Inserts the last result at the cursor of the paper editor the command is run from, where that cursor is
   * now, on lines of its own (one undoable edit), then adds the cited papers' entries the paper's .bib lacks, as
   * Cite does. Without a paper editor: the paper it was generated for.
   */
  async insert(): Promise<void> {
    if (!this.last) return void vscode.window.showInformationMessage('Corpus Lens: generate related work first.');
    const editor = this.paperEditor() ?? (await vscode.window.showTextDocument(this.last.paper, { viewColumn: vscode.ViewColumn.One }));
    const doc = editor.document;
    const edit = blockInsertion(doc.getText(), doc.offsetAt(editor.selection.active), this.last.result.text);
    const ok = await editor.edit((b) => b.insert(doc.positionAt(edit.offset), edit.text));
    if (!ok) return void vscode.window.showErrorMessage(`Corpus Lens: could not insert into ${vscode.workspace.asRelativePath(doc.uri)}.`);
    this.log.info(`related work inserted into ${doc.uri.fsPath} at line ${doc.positionAt(edit.offset).line + 1}`);
    const added = await this.addEntries(doc);
    void vscode.window.showInformationMessage(
      `Corpus Lens: related work inserted, citing ${this.last.result.cited.length} papers; ${added}.`,
    );
  }

  /** Appends the entries of the cited papers whose keys the project's .bib does not have yet (as it is now). */
  async appendBibtex(): Promise<void> {
    if (!this.last) return void vscode.window.showInformationMessage('Corpus Lens: generate related work first.');
    const added = await this.addEntries(await vscode.workspace.openTextDocument(this.last.paper));
    void vscode.window.showInformationMessage(`Corpus Lens: ${added}.`);
  }

  /** Adds the last result's new entries to the .bib of `paper` (one edit, saved); says what it did. */
  private async addEntries(paper: vscode.TextDocument): Promise<string> {
    const format = formatOf(paper) === 'markdown' ? 'markdown' : 'latex';
    const uri = await resolveBibFile(paper, format, readSettings(paper.uri).citation.bibFile);
    const existing = await openIfExists(uri);
    const { BibIndex, entriesToAppend } = heavy();
    const fresh = entriesToAppend(this.last!.result.cited, await BibIndex.read(existing?.getText() ?? ''));
    if (!fresh.length) return `every cited paper is already in ${vscode.workspace.asRelativePath(uri)}`;
    await appendEntry(uri, existing, fresh.join('\n').trim());
    this.log.info(`related work: ${fresh.length} BibTeX entries added to ${uri.fsPath}`);
    return `${fresh.length} BibTeX entr${fresh.length === 1 ? 'y' : 'ies'} added to ${vscode.workspace.asRelativePath(uri)}`;
  }
}

/** The draft as shown: the text, then the cited papers' BibTeX commented out. */
function draftText(result: ReviewResult, format: 'latex' | 'markdown'): string {
  return result.text + (result.bibtex ? `\n\n${commentOut(result.bibtex, format)}` : '');
}

/** What a run produced, as the notification says it: "evidence outline: 25 papers, 5 themes". */
export function describeResult(result: ReviewResult): string {
  const papers = `${result.cited.length} paper${result.cited.length === 1 ? '' : 's'}`;
  const n = result.mode === 'outline' ? (result.themes ?? 0) : result.sections.length;
  const d = result.decomposition;
  const filters = hasQuestionFilters(d) ? ` (filters from the topic: ${describeFilters(d)})` : '';
  return result.mode === 'outline'
    ? `evidence outline: ${papers}, ${n} theme${n === 1 ? '' : 's'}${filters}`
    : `related work: ${n} section${n === 1 ? '' : 's'} citing ${papers}${filters} (${costLine(result.trace.total)})`;
}

/** The BibTeX shown under the draft, as comments, so the draft stays valid LaTeX/Markdown (no field can end the comment). */
function commentOut(bibtex: string, format: 'latex' | 'markdown'): string {
  if (format === 'latex')
    return bibtex
      .split('\n')
      .map((l) => `% ${l}`)
      .join('\n');
  return `<!-- BibTeX of the cited papers\n${heavy().htmlCommentSafe(bibtex)}\n-->`;
}

/** Appends streamed text to the result editor at most every 150 ms (an edit per token would flood the host). */
class StreamWriter {
  private buffer = '';
  private lastTitle = '';
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly editor: vscode.TextEditor) {}

  write(title: string, delta: string): void {
    if (title !== this.lastTitle) {
      this.buffer += `${this.lastTitle ? '\n\n' : ''}== ${title} ==\n`;
      this.lastTitle = title;
    }
    this.buffer += delta;
    this.timer ??= setTimeout(() => void this.flush(), 150);
  }

  flush(): Promise<unknown> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.buffer;
    this.buffer = '';
    if (text) {
      const doc = this.editor.document;
      this.chain = this.chain.then(() => this.editor.edit((b) => b.insert(doc.positionAt(doc.getText().length), text)));
    }
    return this.chain;
  }
}
