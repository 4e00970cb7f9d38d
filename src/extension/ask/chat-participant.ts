// Registers `@corpus` in VS Code's chat, where the chat API exists (guarded at run time; declared in package.json's
// chatParticipants). The activation shell calls this: the participant exists from activation, and its handler (the
// answering in participant.ts) loads with the features on the first question.
import * as vscode from 'vscode';
import { errorText } from '../../core/redact.js';
import { PARTICIPANT_ID } from '../command-table.js';

export function registerCorpusParticipant(log: vscode.LogOutputChannel, handler: vscode.ChatRequestHandler): vscode.Disposable | undefined {
  const api = (vscode as { chat?: typeof vscode.chat }).chat;
  if (typeof api?.createChatParticipant !== 'function') {
    log.info('VS Code offers no chat API here: the @corpus participant is not registered');
    return undefined;
  }
  let participant: vscode.ChatParticipant;
  try {
    participant = api.createChatParticipant(PARTICIPANT_ID, handler);
  } catch (err) {
    // A host whose chat refuses the participant must not cost the rest of the extension its activation.
    log.warn(`the @corpus chat participant could not be registered: ${errorText(err)}`);
    return undefined;
  }
  participant.iconPath = new vscode.ThemeIcon('library');
  participant.followupProvider = {
    provideFollowups: (result) =>
      result.metadata?.answered ? [{ prompt: 'Where did you find that?', label: 'Where did you find that?' }] : [],
  };
  log.info('the @corpus chat participant is registered');
  return participant;
}
