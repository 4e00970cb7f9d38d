// What an Add Papers source is given (the extension's services) and what it offers (a menu entry); its own module so
// that a source living in another feature folder (Zotero) can name them without importing the menu that lists it.
import type * as vscode from 'vscode';
import type { FetchSummary } from '../../core/sources/index.js';
import type { CorpusService } from '../corpus/corpus.js';
import type { Secrets } from '../shared/secrets.js';

export interface AddPapersDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  paperEditor: () => vscode.TextEditor | undefined;
}

/** One entry of the Add Papers menu (other sources add theirs to ADD_PAPERS_ENTRIES). */
export interface AddPapersEntry {
  id: string;
  label: string;
  detail: string;
  /** `input` comes from a script or test calling the command (e.g. `{ ids: '2101.00001' }`); else the user is asked. */
  run(deps: AddPapersDeps, input?: AddPapersInput): Promise<FetchSummary | void>;
}

/** What `corpusLens.addPapers` accepts after the entry id, instead of asking. */
export interface AddPapersInput {
  ids?: string;
  bibFile?: string;
  /** From Zotero: index this collection ('' or no collection: the whole library) without asking. */
  zotero?: { collection?: string; collections?: string[] };
}
