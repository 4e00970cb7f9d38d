// `@corpus` in VS Code's chat (chat-participant.ts registers it): the question is answered by the same core as the Ask tab (src/core/ask), the stages shown as
// progress, the checked answer streamed as Markdown (every piece of corpus or model text escaped: core/ask/markdown.ts)
// with a reference to each cited paper's source and to each corpus paper its quotes cite; follow-ups continue the conversation of that chat (its history).
// The model: the one chosen in the chat view unless corpusLens.llm.provider is "openai" with an endpoint set.
import * as vscode from 'vscode';
import { estimateLine } from '../../core/grounding/cost.js';
import { errorText } from '../../core/redact.js';
import { PARTICIPANT_ID } from '../command-table.js';
import type { AskElement, AskProgress } from '../../core/ask/types.js';
import { escapeMarkdownText } from '../../core/text/escape.js';
import { configuredChat, vscodeChat } from '../shared/chat.js';
import type { CorpusService } from '../corpus/corpus.js';
import { heavy } from '../load.js';
import { conversationFromHistory, CONVERSATION_METADATA, type HistoryEntry } from './participant-history.js';
import { participantReferences } from './participant-references.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';

const STAGE: Record<Extract<AskProgress, { kind: 'stage' }>['stage'], string> = {
  rewrite: 'Reading the conversation…',
  search: 'Searching the corpus…',
  answer: 'Writing the answer…',
  check: 'Checking each sentence against its quotes…',
};

export interface ParticipantDeps {
  corpus: CorpusService;
  secrets: Secrets;
  log: vscode.LogOutputChannel;
  /** Where a cited paper can be opened (its indexed file, at the sentence when given, else its DOI), if anywhere. */
  sourceLocation(paperId: string, sentence: { id: number; text: string } | null): Promise<vscode.Uri | vscode.Location | undefined>;
  /** The PNG file of a PDF element's region, once the panel has drawn it (element-crops.ts), else undefined. */
  elementImage(e: AskElement): Promise<string | undefined>;
}

/** What answers `@corpus` (chat-participant.ts registered the participant at activation, before this module loaded). */
export function participantHandler(deps: ParticipantDeps): vscode.ChatRequestHandler {
  return (request, context, stream, token) => answer(deps, request, context, stream, token);
}

/** The element cards' crops the panel has drawn, as images under the answer (chat renders file: images). */
async function elementImages(deps: ParticipantDeps, elements: readonly AskElement[], stream: vscode.ChatResponseStream): Promise<void> {
  for (const e of elements) {
    const file = await deps.elementImage(e).catch(() => undefined);
    if (!file) continue;
    const label = escapeMarkdownText(`${e.label ?? `Unnumbered ${e.type}`}${e.page !== null ? `, p. ${e.page}` : ''}`);
    // The alt text is escaped; the target is our own cache file's URI, in angle brackets (it may hold spaces).
    stream.markdown(new vscode.MarkdownString(`\n\n![${label}](<${vscode.Uri.file(file).toString()}>)\n`));
  }
}

async function answer(
  deps: ParticipantDeps,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const core = heavy();
  const conversation = conversationFromHistory(
    context.history as readonly HistoryEntry[],
    PARTICIPANT_ID,
    core.parseConversation,
    core.newConversation,
  );
  const controller = new AbortController();
  const cancel = token.onCancellationRequested(() => controller.abort());
  try {
    const { store, embedder } = await deps.corpus.connection();
    const { llm, ask } = readSettings();
    const chat =
      llm.provider === 'openai' && llm.baseUrl
        ? await configuredChat(deps.secrets)
        : request.model
          ? await vscodeChat(llm.model, request.model)
          : await configuredChat(deps.secrets);
    let ahead = '';
    const turn = await core.ask(conversation, request.prompt, {
      store,
      embedder,
      chat,
      maxElements: ask.maxElements,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.kind === 'estimate') ahead = ` (estimate: ${estimateLine(p.estimate)})`;
        if (p.kind === 'stage') stream.progress(`${STAGE[p.stage]}${ahead}`);
      },
    });
    stream.markdown(core.turnMarkdown(turn, conversation));
    if (turn.kind !== 'unknown') await elementImages(deps, turn.elements ?? [], stream);
    const cited = turn.kind === 'unknown' ? [] : turn.citations.map((n) => conversation.sources[n - 1]).filter((s) => !!s);
    for (const ref of participantReferences(cited)) {
      const where = await deps.sourceLocation(ref.paperId, ref.sentence).catch(() => undefined);
      if (where) stream.reference(where);
    }
    deps.log.info(`@corpus: ${turn.kind}, ${turn.citations.length} citations, ${turn.counts.ms} ms`);
    return {
      metadata: {
        [CONVERSATION_METADATA]: core.serializeConversation(conversation),
        answered: turn.kind === 'answer' || turn.kind === 'extract',
      },
    };
  } catch (err) {
    if (core.isAbortError(err) || controller.signal.aborted) return {};
    deps.log.error(`@corpus failed: ${errorText(err)}`);
    return { errorDetails: { message: `Corpus Lens: ${errorText(err).split('\n')[0]}` } };
  } finally {
    cancel.dispose();
  }
}
