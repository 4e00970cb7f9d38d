// The ask feature: Ask the Corpus in the panel's Ask tab (its progress and answers shown there, an answer
// inserted into the paper, a source cited or opened) and as @corpus in VS Code's chat.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Conversation } from '../../core/ask/types.js';
import { idsOfPaperId } from '../../core/paper/ids.js';
import { errorText } from '../../core/redact.js';
import type { AskView, HitView, HostMessage } from '../../../webview/protocol.js';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import { toHitView } from '../panel/hit-view.js';
import type { ResultsPanel } from '../panel/panel.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import type { Secrets } from '../shared/secrets.js';
import type { SourceOpener } from '../source/open-source.js';
import type { AskCorpus } from './ask.js';
import { toAskProgress, toAskView } from './ask-view.js';
import { ElementCrops } from './element-crops.js';
import { participantHandler } from './participant.js';

interface AskDeps {
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  ask: AskCorpus;
  panel: ResultsPanel;
  editors: PaperEditors;
  sources: SourceOpener;
}

export interface AskFeature {
  commands: Pick<CommandTable, 'corpusLens.ask' | 'corpusLens.clearAskConversation' | 'corpusLens.insertAskAnswer'>;
  /** Conversation source `n` as a hit (its paper from the corpus): what Cite and Open source take. */
  sourceHit(n: number): Promise<HitView>;
  /** Inserts the answer of turn `turn` into the paper being written, citing its sources. */
  insertAnswer(turn: number): Promise<void>;
  /** Open source of element card `index` of turn `turn`: the PDF page with its box outlined, else the source at its caption. */
  openElement(turn: number, index: number): Promise<void>;
  /** Open cited paper: the corpus paper that work `cite` of source `n`'s quote cites (not the quoting paper). */
  openCited(n: number, cite: number): Promise<void>;
  /** What answers `@corpus` in VS Code's chat (the activation shell registered the participant). */
  chat: vscode.ChatRequestHandler;
  /** The conversation as the Ask tab shows it, with its element cards' images. */
  view(): Promise<AskView>;
  /** An element card's `askCrop`: the PDF to draw its region from, or why not. */
  crop(key: string): Promise<Extract<HostMessage, { type: 'askCropData' | 'askCropFailed' }>>;
  /** The crop the panel drew (kept for the cards and the chat), or why it could not. */
  cropDone(key: string, png: string | null, message?: string): Promise<void>;
}

export function register(context: vscode.ExtensionContext, deps: AskDeps): AskFeature {
  const { log, secrets, corpus, ask, panel, editors, sources } = deps;
  const crops = new ElementCrops(path.join(context.globalStorageUri.fsPath, 'element-crops'), sources.pdfOf);
  const view = async (c: Conversation = ask.conversation()): Promise<AskView> => {
    const v = toAskView(c);
    const cards = v.turns.flatMap((t) => t.elements);
    const images = await crops.images(c.turns.flatMap((t) => t.elements ?? [])).catch((err) => {
      log.warn(`element images: ${errorText(err)}`);
      return cards.map(() => null);
    });
    cards.forEach((card, i) => (card.image = images[i] ?? null));
    return v;
  };
  // Views are finished in order: an answer's images must not land after the clear that followed it.
  let shown = 0;
  const showAsk = async (c?: Conversation) => {
    const mine = ++shown;
    const v = await view(c);
    if (mine === shown) panel.showAsk(v);
  };
  context.subscriptions.push(
    ask.onDidAsk((e) => {
      if (e.kind === 'start') panel.askProgress({ kind: 'start', question: e.question, llm: e.llm });
      else if (e.kind === 'progress') {
        const p = toAskProgress(e.progress);
        if (p) panel.askProgress(p);
      } else if (e.kind === 'stopped') panel.askProgress({ kind: 'stopped', reason: e.reason, message: e.message });
      else void showAsk(e.kind === 'done' ? e.conversation : undefined);
    }),
  );
  const sourceHit = async (n: number) => {
    const hit = (await ask.hitsOf([n])).get(n);
    if (!hit) throw new Error(`source [${n}] is not in the corpus any more (was the conversation cleared, or the corpus switched?)`);
    return toHitView(hit);
  };
  const insertAnswer = async (turn: number) => {
    const editor = editors.current();
    if (!editor) return void vscode.window.showWarningMessage('Corpus Lens: open the paper to insert the answer into first.');
    const keys = await ask.insertAnswer(turn, editor);
    panel.notice(keys ? `Inserted, citing ${keys.join(', ')}` : 'This answer has nothing to insert');
  };
  const openElement = async (turn: number, index: number) => {
    const e = ask.conversation().turns[turn]?.elements?.[index];
    if (!e) throw new Error('this figure, table or equation is not in the conversation any more (was it cleared?)');
    const label = e.label ?? e.type;
    await sources.openPaperAt(
      { id: e.paperId, title: e.title, doi: null },
      { text: e.caption ?? e.label, page: e.page, target: e.bbox && e.page ? { kind: 'box', bbox: e.bbox, label } : null },
    );
  };
  const openCited = async (n: number, index: number) => {
    const c = ask.conversation().sources[n - 1]?.cites?.[index];
    if (!c) throw new Error(`source [${n}] cites no such work any more (was the conversation cleared?)`);
    if (!c.inCorpus) throw new Error(`${c.work} is not in the corpus`);
    const { paperId, title } = c.inCorpus;
    await sources.openPaperAt({ id: paperId, title, doi: idsOfPaperId(paperId).doi }, { text: null, page: null, target: null });
  };

  const chat = participantHandler({
    corpus,
    secrets,
    log,
    sourceLocation: sources.sourceLocation,
    elementImage: (e) => crops.cached(e),
  });

  const commands: AskFeature['commands'] = {
    // "Ask the Corpus…" opens the panel's Ask tab; with a question (scripts, tests, the chat) it also asks it there.
    // Failures (no corpus included: "no corpus at … yet") are reported by the guard of register.ts, like every command's.
    'corpusLens.ask': async (options?: { question?: string }) => {
      await panel.focusAsk();
      return options?.question ? ask.ask(options.question) : undefined;
    },
    'corpusLens.clearAskConversation': async () => {
      await ask.clear();
      void vscode.window.showInformationMessage('Corpus Lens: the Ask conversation is cleared.');
    },
    // The last answer that has something to insert ("where did you find that?" and "I don't know" have not).
    'corpusLens.insertAskAnswer': async (options?: { turn?: number }) => {
      const turns = ask.conversation().turns;
      let turn = options?.turn ?? turns.length - 1;
      while (options?.turn === undefined && turn >= 0 && turns[turn].kind !== 'answer' && turns[turn].kind !== 'extract') turn--;
      if (turn < 0) return void vscode.window.showInformationMessage('Corpus Lens: no answer to insert yet: ask the corpus first.');
      await insertAnswer(turn);
    },
  };
  const crop = (key: string) => crops.request(key);
  const cropDone = async (key: string, png: string | null, message?: string) => {
    if (png) await crops.save(key, png);
    else log.warn(`element image ${key} could not be drawn: ${message ?? 'no reason given'}`);
  };
  return { commands, sourceHit, insertAnswer, openElement, openCited, view: () => view(), crop, cropDone, chat };
}
