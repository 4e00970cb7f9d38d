// Every command id of the extension, and the ids of its views and chat participant (pure: no vscode import, so a unit
// test reads it, and the activation shell registers them all without loading a feature). The composition root
// (extension.ts) registers one handler per id from a CommandTable, which the compiler holds to exactly these ids;
// test/unit/command-table.test.ts holds PUBLIC_COMMANDS to package.json's contributes.commands.

/** The commands package.json contributes (the palette, menus, the keybinding), each registered by one feature. */
export const PUBLIC_COMMANDS = [
  'corpusLens.findSimilar',
  'corpusLens.openPanel',
  'corpusLens.addPapers',
  'corpusLens.citeFromZotero',
  'corpusLens.indexFolder',
  'corpusLens.indexThisPaper',
  'corpusLens.connect',
  'corpusLens.moveToPostgres',
  'corpusLens.setApiKey',
  'corpusLens.showLog',
  'corpusLens.generateRelatedWork',
  'corpusLens.insertRelatedWork',
  'corpusLens.appendRelatedWorkBibtex',
  'corpusLens.showLastRelatedWork',
  'corpusLens.ask',
  'corpusLens.clearAskConversation',
  'corpusLens.insertAskAnswer',
  'corpusLens.refreshStructure',
  'corpusLens.insertSectionHeading',
  'corpusLens.checkCitations',
  'corpusLens.corpusHealth',
  'corpusLens.describeElements',
] as const;

/** Commands run from links the extension renders (the hover's "Cite" and "Open all in the panel", the quick fix), not listed in the palette. */
export const INTERNAL_COMMANDS = [
  'corpusLens.citeHit',
  'corpusLens.showInPanel',
  // The citation checker's: a completion's entry, the hover's locator, the quick fixes' panel, fetch and save.
  'corpusLens.citeCheck.addEntry',
  'corpusLens.citeCheck.addLocator',
  'corpusLens.citeCheck.showClosest',
  'corpusLens.citeCheck.addToCorpus',
  'corpusLens.citeCheck.saveBib',
] as const;

export type CommandId = (typeof PUBLIC_COMMANDS)[number] | (typeof INTERNAL_COMMANDS)[number];

/** A command's handler: its arguments are whatever the caller passes (a script, a menu, a link), typed by each feature. */
type CommandHandler = (...args: never[]) => unknown;

/** One handler per command id; each feature's `register` returns its part (a Pick of this). */
export type CommandTable = { [K in CommandId]: CommandHandler };

/** The views package.json contributes: the panel (a webview) and the section structure (a tree). */
export const RESULTS_VIEW_ID = 'corpusLens.results';
export const STRUCTURE_VIEW_ID = 'corpusLens.structure';
/** The Corpus Health report's document scheme: the activation shell serves it, so a report VS Code restores opens. */
export const HEALTH_SCHEME = 'corpus-lens-health';
/** The @corpus chat participant. */
export const PARTICIPANT_ID = 'corpusLens.corpus';
