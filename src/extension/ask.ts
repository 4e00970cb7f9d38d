// "Corpus Lens: Ask the Corpus…": a question (input box, or the command's `{question}` argument) answered by the core
// (src/core/ask) on the current corpus connection and the configured LLM (offline extract without one), with a
// cancellable progress notification. The conversation is the core's JSON in the workspace state, so follow-ups and
// "where did you find that?" see the history across sessions until it is cleared. The answer is shown in a
// read-only virtual Markdown document beside the editor, rendered from that state: nothing the author could edit by
// mistake, and no untitled buffer left behind per question.
import * as vscode from 'vscode';
import type { AskTurn, Conversation } from '../core/ask/types.js';
import { errorText } from '../core/redact.js';
import { configuredChat } from './chat.js';
import type { CorpusService } from './corpus.js';
import { heavy } from './load.js';
import type { Secrets } from './secrets.js';

export const ASK_CONVERSATION_KEY = 'corpusLens.askConversation';
export const ASK_SCHEME = 'corpus-lens-ask';

/** The answer document's name (its tab, and its preview's). */
const ANSWER_TITLE = 'Ask the Corpus.md';

export class AskCorpus implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly uri = vscode.Uri.from({ scheme: ASK_SCHEME, path: `/${ANSWER_TITLE}` });
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Questions run one after another: each reads the conversation the previous one saved. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly state: vscode.Memento,
    private readonly corpus: CorpusService,
    private readonly secrets: Secrets,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The saved conversation (a new one when there is none, or when the saved one cannot be read: logged). */
  conversation(): Conversation {
    const saved = this.state.get<string>(ASK_CONVERSATION_KEY);
    const { newConversation, parseConversation } = heavy();
    if (!saved) return newConversation();
    try {
      return parseConversation(saved);
    } catch (err) {
      this.log.warn(`the saved Ask conversation cannot be read, starting a new one: ${errorText(err)}`);
      return newConversation();
    }
  }

  provideTextDocumentContent(): string {
    return heavy().conversationMarkdown(this.conversation());
  }

  /** Asks `question` (else asks the author for one); returns the turn, or undefined when dismissed or cancelled. */
  async ask(question?: string): Promise<AskTurn | undefined> {
    question ??= await vscode.window.showInputBox({
      title: 'Corpus Lens: Ask the Corpus',
      prompt: 'A question your papers answer; a follow-up; or “where did you find that?”',
      ignoreFocusOut: true,
    });
    if (!question?.trim()) return undefined;
    const q = question;
    const run = this.queue.then(() => this.run(q));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(question: string): Promise<AskTurn | undefined> {
    const { store, embedder } = await this.corpus.connection();
    const chat = await configuredChat(this.secrets);
    const core = heavy();
    // Read fresh and saved only when the turn completes: a cancelled or failed question leaves the history as it was.
    const conversation = this.conversation();
    const turn = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Corpus Lens: asking the corpus${chat ? '' : ' (extract: no LLM configured)'}`, cancellable: true },
      async (_progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        try {
          return await core.ask(conversation, question, { store, embedder, chat, signal: controller.signal });
        } catch (err) {
          if (core.isAbortError(err)) return undefined;
          throw err;
        }
      },
    );
    if (!turn) return void vscode.window.showInformationMessage('Corpus Lens: question cancelled.');
    await this.state.update(ASK_CONVERSATION_KEY, core.serializeConversation(conversation));
    this.changed.fire(this.uri);
    await this.show();
    const c = turn.counts;
    this.log.info(`ask: ${turn.kind}, answerability ${turn.answerability.toFixed(2)}, ${turn.citations.length} citations, ${c.evidence} evidence sentences from ${c.papers} papers, ${c.llmCalls} LLM calls, ${c.ms} ms (model ${c.modelMs} ms)`);
    return turn;
  }

  /** Forgets the conversation of this workspace (the next question starts a new one, numbered from [1]). */
  async clear(): Promise<void> {
    await this.state.update(ASK_CONVERSATION_KEY, undefined);
    this.changed.fire(this.uri);
    this.log.info('ask: conversation cleared');
    void vscode.window.showInformationMessage('Corpus Lens: the Ask conversation is cleared.');
  }

  private async show(): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.uri);
    if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    // Rendered, as the author reads it: the source is escaped for safety (every punctuation mark of corpus text and
    // model output backslashed), which the preview shows as plain text. It follows the document as turns are added.
    const shown = vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label.includes(ANSWER_TITLE)));
    if (shown) return;
    const writing = vscode.window.activeTextEditor;
    await vscode.commands.executeCommand('markdown.showPreviewToSide', doc.uri);
    if (writing) await vscode.window.showTextDocument(writing.document, { viewColumn: writing.viewColumn, selection: writing.selection }); // the cursor stays in the paper
  }

  dispose(): void {
    this.changed.dispose();
  }
}
