// Ask the Corpus in VS Code: a question (from the panel's Ask tab, or the `corpusLens.ask` command's `{question}`)
// answered by the core (src/core/ask) on the current corpus connection and the configured LLM (offline extract
// without one). The conversation is the core's JSON in the workspace state, so follow-ups and "where did you find
// that?" see the history across sessions until it is cleared. What a running question does (its stages, the
// model's draft as it streams) and its end are events the panel renders; the author's document changes only on
// "Insert answer at cursor" or "Cite".
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AskProgress, AskTurn, Conversation } from '../../core/ask/types.js';
import { errorText } from '../../core/redact.js';
import { configuredChat } from '../shared/chat.js';
import { appendEntry, openIfExists, resolveBibFile } from '../cite/cite.js';
import type { CorpusService } from '../corpus/corpus.js';
import { formatOf } from '../shared/documents.js';
import { heavy } from '../load.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';
import type { Hit } from '../../core/store/types.js';

export const ASK_CONVERSATION_KEY = 'corpusLens.askConversation';

/** What the panel is told about a question while and after it runs. */
export type AskEvent =
  | { kind: 'start'; question: string; llm: string | null }
  | { kind: 'progress'; progress: AskProgress }
  | { kind: 'done'; turn: AskTurn; conversation: Conversation }
  | { kind: 'stopped'; reason: 'cancelled' | 'failed'; message?: string }
  | { kind: 'cleared' };

export class AskCorpus implements vscode.Disposable {
  private readonly events = new vscode.EventEmitter<AskEvent>();
  readonly onDidAsk = this.events.event;
  /** Questions run one after another: each reads the conversation the previous one saved. */
  private queue: Promise<unknown> = Promise.resolve();
  private running: AbortController | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly corpus: CorpusService,
    private readonly secrets: Secrets,
    private readonly log: vscode.LogOutputChannel,
    /** The corpus papers that are the author's open draft: never evidence (Lookups.selfPaperIds). */
    private readonly draftPapers: () => Promise<string[]> = async () => [],
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

  /** Asks `question`; returns the turn, or undefined when it was empty or cancelled. Failures reject (and are told). */
  ask(question: string): Promise<AskTurn | undefined> {
    if (!question.trim()) return Promise.resolve(undefined);
    const run = this.queue.then(() => this.run(question));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the running question (the conversation stays as it was before it). */
  cancel(): void {
    this.running?.abort();
  }

  private async run(question: string): Promise<AskTurn | undefined> {
    const controller = new AbortController();
    this.running = controller;
    const core = heavy();
    try {
      const { store, embedder } = await this.corpus.connection();
      const chat = await configuredChat(this.secrets);
      this.events.fire({ kind: 'start', question, llm: chat?.model ?? null });
      // Read fresh and saved only when the turn completes: a cancelled or failed question leaves the history as it was.
      const conversation = this.conversation();
      const turn = await core.ask(conversation, question, {
        store,
        embedder,
        chat,
        excludePaperIds: await this.draftPapers(),
        maxElements: readSettings().ask.maxElements,
        signal: controller.signal,
        onProgress: (progress) => this.events.fire({ kind: 'progress', progress }),
      });
      await this.state.update(ASK_CONVERSATION_KEY, core.serializeConversation(conversation));
      const c = turn.counts;
      this.log.info(
        `ask: ${turn.kind}, answerability ${turn.answerability.toFixed(2)}, ${turn.citations.length} citations, ${c.evidence} evidence sentences from ${c.papers} papers, ${c.llmCalls} LLM calls, ${c.ms} ms (model ${c.modelMs} ms)`,
      );
      this.events.fire({ kind: 'done', turn, conversation });
      return turn;
    } catch (err) {
      if (core.isAbortError(err) || controller.signal.aborted) {
        this.events.fire({ kind: 'stopped', reason: 'cancelled' });
        this.log.info('ask: cancelled');
        return undefined;
      }
      this.events.fire({ kind: 'stopped', reason: 'failed', message: errorText(err).split('\n')[0] });
      throw err;
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  /** Forgets the conversation of this workspace (the next question starts a new one, numbered from [1]). */
  async clear(): Promise<void> {
    this.cancel();
    await this.state.update(ASK_CONVERSATION_KEY, undefined);
    this.events.fire({ kind: 'cleared' });
    this.log.info('ask: conversation cleared');
  }

  /** The corpus rows of sources `numbers` (paper metadata for Cite and Open source), by source number. */
  async hitsOf(numbers: readonly number[]): Promise<Map<number, Hit>> {
    const c = this.conversation();
    const wanted = numbers.map((n) => c.sources[n - 1]).filter((s) => !!s);
    const { store } = await this.corpus.connection();
    const hits = await store.context(wanted.map((s) => s.sentenceId));
    const out = new Map<number, Hit>();
    for (const s of wanted) {
      const h = hits.find((x) => x.sentence.id === s.sentenceId && x.paper.id === s.paperId);
      if (h) out.set(s.n, h);
    }
    return out;
  }

  /**
   * "Insert answer at cursor": turn `index`'s checked answer at the cursor of `editor` as ONE edit (one undo), its
   * citations as the configured command / [@key], and the BibTeX entries of cited papers the .bib lacks appended
   * (keys reused from the .bib by DOI or title, as Cite does). Returns the keys cited, or undefined when the turn
   * has nothing to insert.
   */
  async insertAnswer(index: number, editor: vscode.TextEditor): Promise<string[] | undefined> {
    const c = this.conversation();
    const turn = c.turns[index];
    if (!turn) throw new Error(`there is no answer ${index + 1} in this conversation (it was cleared?)`);
    const core = heavy();
    const cited = core.citedPapers(turn, c.sources);
    if (!cited.length || (turn.kind !== 'answer' && turn.kind !== 'extract')) return undefined;
    const doc = editor.document;
    const format = formatOf(doc) === 'markdown' ? 'markdown' : 'latex';
    const settings = readSettings(doc.uri);
    const bibUri = await resolveBibFile(doc, format, settings.citation.bibFile);
    const bibDoc = await openIfExists(bibUri);
    const hits = await this.hitsOf(cited.map((s) => s.n));
    // Keys planned against the .bib as it will be, so two new papers never get the same key.
    let bib = bibDoc?.getText() ?? '';
    const entries: string[] = [];
    const keys = new Map<string, string>();
    for (const s of cited) {
      const paper = hits.get(s.n)?.paper;
      if (!paper) throw new Error(`the paper of source [${s.n}] ("${s.title ?? s.paperId}") is no longer in the corpus`);
      const plan = await core.planCitation(bib, { ...paper, arxivId: null, url: null });
      keys.set(s.paperId, plan.key);
      if (plan.entry) {
        entries.push(plan.entry.trimEnd());
        bib += `\n\n${plan.entry}`;
      }
    }
    const body = core.answerForPaper(turn, c.sources, format, (id) => keys.get(id)!, settings.citation.command);
    if (!body) return undefined;
    const at = editor.selection.active;
    // Separated from a word it would otherwise run into, on either side.
    const line = doc.lineAt(at.line).text;
    const text = `${/\S/.test(line.charAt(at.character - 1)) ? ' ' : ''}${body}${/\S/.test(line.charAt(at.character)) ? ' ' : ''}`;
    const inserted = await editor.edit((b) => b.insert(at, text));
    if (!inserted) throw new Error(`could not insert the answer into ${path.basename(doc.fileName)}`);
    if (entries.length) await appendEntry(bibUri, bibDoc, entries.join('\n\n'));
    this.log.info(
      `ask: inserted answer ${index + 1} into ${doc.uri.fsPath} citing ${[...keys.values()].join(', ')}${entries.length ? `; ${entries.length} BibTeX entries added to ${bibUri.fsPath}` : ''}`,
    );
    return [...keys.values()];
  }

  dispose(): void {
    this.cancel();
    this.events.dispose();
  }
}
