// The @corpus participant's conversation comes from VS Code's chat history, not the workspace state: each reply
// carries the conversation as it stood after it (in its result metadata), so a follow-up in the same chat continues
// it — history, source numbers and all — and a new chat starts afresh. Pure (no vscode import) for the unit tests.
import type { Conversation } from '../../core/ask/types.js';

/** The parts of a chat history entry this reads (vscode.ChatResponseTurn has them; a ChatRequestTurn has no result). */
export interface HistoryEntry {
  participant?: string;
  result?: { metadata?: { [key: string]: unknown } };
}

export const CONVERSATION_METADATA = 'corpusLensConversation';

/**
 * The conversation after this participant's latest reply in `history`, parsed with `parse` (a reply whose saved
 * conversation is unreadable is skipped for an earlier one); `fresh()` when there is none.
 */
export function conversationFromHistory(
  history: readonly HistoryEntry[],
  participant: string,
  parse: (json: string) => Conversation,
  fresh: () => Conversation,
): Conversation {
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    const saved = h.participant === participant ? h.result?.metadata?.[CONVERSATION_METADATA] : undefined;
    if (typeof saved !== 'string') continue;
    try {
      return parse(saved);
    } catch {
      continue;
    }
  }
  return fresh();
}
