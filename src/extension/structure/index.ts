// The structure feature: the "Section Structure" view, its Refresh, and Insert Section Heading into the paper.
import * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import {
  insertSectionHeading,
  INSERT_SECTION_HEADING_COMMAND,
  REFRESH_STRUCTURE_COMMAND,
  type StructureItem,
  type StructureProvider,
} from './structure.js';

interface StructureDeps {
  structure: StructureProvider;
  editors: PaperEditors;
  /** The view, created by the activation shell over a provider that forwards to `structure`. */
  view: vscode.TreeView<StructureItem>;
}

export function register(deps: StructureDeps): {
  commands: Pick<CommandTable, typeof REFRESH_STRUCTURE_COMMAND | typeof INSERT_SECTION_HEADING_COMMAND>;
} {
  const { structure: provider, editors, view } = deps;
  provider.attach(view);

  const insert = async (arg?: StructureItem | string) => {
    const editor = editors.current();
    if (!editor)
      return void vscode.window.showInformationMessage(
        'Corpus Lens: open a LaTeX or Markdown paper and place the cursor where the section goes.',
      );
    let title = typeof arg === 'string' ? arg : arg?.title;
    // The row the title is in (a title of a clustered row, or a title typed in by a caller).
    let row = typeof arg === 'string' || !arg ? undefined : 'variantOf' in arg ? arg.variantOf : arg;
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
    const wanted = title;
    row ??= provider.sections.find((s) => s.variants.some((v) => v.title === wanted) || s.title === wanted);
    // A section the paper has already (its abstract environment, or a heading of the row) is not added twice: the
    // cursor goes to it, and "Insert Another" is there for a paper that really wants two.
    const at = row ? provider.inCurrentPaper(row.key) : undefined;
    if (at !== undefined) {
      const pos = editor.document.positionAt(at);
      const shown = await vscode.window.showTextDocument(editor.document, {
        viewColumn: editor.viewColumn,
        selection: new vscode.Range(pos, pos),
      });
      shown.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      const again = await vscode.window.showInformationMessage(
        `Corpus Lens: your paper already has ${/^abstract$/i.test(wanted) ? 'an abstract' : `“${wanted}”`} (line ${pos.line + 1}); the cursor is on it.`,
        'Insert Another',
      );
      if (again !== 'Insert Another') return;
    }
    await insertSectionHeading(editor, title);
  };

  return { commands: { [REFRESH_STRUCTURE_COMMAND]: () => provider.refresh(), [INSERT_SECTION_HEADING_COMMAND]: insert } };
}
