// The structure feature: the "Section Structure" view, its Refresh, and Insert Section Heading into the paper.
import * as vscode from 'vscode';
import type { SectionStat } from '../../core/retrieve/structure.js';
import type { CommandTable } from '../command-table.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import {
  insertSectionHeading,
  INSERT_SECTION_HEADING_COMMAND,
  REFRESH_STRUCTURE_COMMAND,
  STRUCTURE_VIEW_ID,
  type StructureProvider,
} from './structure.js';

interface StructureDeps {
  structure: StructureProvider;
  editors: PaperEditors;
}

export function register(
  context: vscode.ExtensionContext,
  deps: StructureDeps,
): { commands: Pick<CommandTable, typeof REFRESH_STRUCTURE_COMMAND | typeof INSERT_SECTION_HEADING_COMMAND> } {
  const { structure: provider, editors } = deps;
  const view = vscode.window.createTreeView(STRUCTURE_VIEW_ID, { treeDataProvider: provider });
  provider.attach(view);

  const insert = async (arg?: SectionStat | string) => {
    const editor = editors.current();
    if (!editor)
      return void vscode.window.showInformationMessage(
        'Corpus Lens: open a LaTeX or Markdown paper and place the cursor where the section goes.',
      );
    let title = typeof arg === 'string' ? arg : arg?.title;
    if (!title) {
      if (provider.current.kind !== 'loaded') await provider.refresh();
      const pick = await vscode.window.showQuickPick(
        provider.sections.map((s) => ({
          label: s.title,
          description: `${s.papers} papers · ${Math.round(s.share * 100)}%`,
          title: s.title,
        })),
        {
          title: 'Corpus Lens: insert a section heading',
          placeHolder: provider.sections.length
            ? "The corpus's usual sections, in their usual order"
            : 'No section structure: is a corpus set up?',
        },
      );
      title = pick?.title;
      if (!title) return;
    }
    await insertSectionHeading(editor, title);
  };

  context.subscriptions.push(view);
  return { commands: { [REFRESH_STRUCTURE_COMMAND]: () => provider.refresh(), [INSERT_SECTION_HEADING_COMMAND]: insert } };
}
