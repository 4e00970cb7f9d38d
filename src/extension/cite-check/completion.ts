// Citation completion: inside `\cite{` (the configured commands) and Pandoc `[@`, the keys of the project's .bib, the
// corpus and the Zotero library, best-supporting paper first (core's rankForCompletion: each paper's best sentence
// scored against the sentence being written). A paper the .bib lacks is offered under the key Cite would give it;
// choosing it inserts the key and then adds its entry as Cite does (the completion's command), nothing before.
import * as vscode from 'vscode';
import type { RankedCandidate } from '../../core/cite-check/types.js';
import { appendEntry, openIfExists } from '../cite/cite.js';
import { documentModel } from '../shared/documents.js';
import { heavy } from '../load.js';
import { citeSlotAt, type CiteSlot } from './cursor.js';
import { offeredPapers, unranked } from './offers.js';
import { CiteSources } from './sources.js';
import { readText } from '../cite/project-bib.js';
import { citeCommands } from './settings.js';

export const ADD_ENTRY_COMMAND = 'corpusLens.citeCheck.addEntry';

/** Papers outside the .bib offered per list (each gets its key planned against the .bib). */
const MAX_NEW = 30;

/** What choosing a paper the .bib lacks adds: `entry` under `key` to the .bib at `bib`. */
export interface NewEntry {
  bib: string;
  key: string;
  entry: string;
}

export class CitationCompletion implements vscode.CompletionItemProvider {
  /** The last list, by document version and slot: the suggest widget asks again for the place just asked about. */
  private last: { at: string; list: Promise<vscode.CompletionList | undefined> } | undefined;

  constructor(
    private readonly sources: CiteSources,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async provideCompletionItems(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.CompletionList | undefined> {
    const format = CiteSources.format(doc);
    if (!format) return undefined;
    const text = doc.getText();
    const slot = citeSlotAt(text, doc.offsetAt(position), format, citeCommands(doc.uri));
    if (!slot) return undefined;
    const at = `${doc.uri.toString()}#${doc.version}@${slot.start}-${slot.end}`;
    if (this.last?.at === at) return this.last.list;
    // Not cancelled with the request: the suggest widget's next request (same place) takes the same list.
    const list = this.build(doc, slot).catch((err: Error) => {
      this.log.warn(`citation completion: ${err.message}`);
      this.last = undefined;
      return undefined;
    });
    this.last = { at, list };
    return list;
  }

  private async build(doc: vscode.TextDocument, slot: CiteSlot): Promise<vscode.CompletionList | undefined> {
    const started = Date.now();
    const sentence = documentModel(doc).sentenceAt(slot.citationStart)?.clean ?? '';
    const bib = await this.sources.bib(doc);
    const ctx = await this.sources.checkContext(bib.index);
    const candidates = offeredPapers(bib.index, ctx?.catalog ?? null, await this.sources.zoteroItems(), slot.others);

    const ranked: RankedCandidate[] =
      ctx && sentence
        ? await heavy()
            .rankForCompletion(ctx, sentence, candidates)
            .catch((err: Error) => {
              this.log.warn(`citation completion: ranking failed (${err.message}); unranked`);
              return unranked(candidates);
            })
        : unranked(candidates);
    const byKey = new Map(candidates.map((c) => [c.key, c]));

    // Keys and entries for papers the .bib lacks, planned as Cite plans them, for the best-ranked few.
    let bibText = bib.text;
    const plans = new Map<string, NewEntry>();
    const fresh = ranked.filter((r) => r.source !== 'bib').slice(0, MAX_NEW);
    const sourceBib = ctx
      ? await sourceEntries(
          ctx.store,
          fresh.map((r) => byKey.get(r.key)?.corpusPaper?.id).filter((x): x is string => !!x),
        )
      : new Map<string, string>();
    for (const r of fresh) {
      const c = byKey.get(r.key)!;
      const meta = c.zotero && heavy().zoteroMeta(c.zotero);
      const plan = meta
        ? await heavy().planCitation(bibText, meta, { key: c.zotero!.citationKey, entry: meta.bibtex! })
        : await heavy().planCitation(bibText, {
            ...c.corpusPaper!,
            arxivId: null,
            url: null,
            bibtex: sourceBib.get(c.corpusPaper!.id) ?? null,
          });
      if (!plan.entry) continue;
      plans.set(r.key, { bib: bib.target.toString(), key: plan.key, entry: plan.entry });
      bibText += `\n\n${plan.entry}`; // the next plan must not take this key
    }

    const range = new vscode.Range(doc.positionAt(slot.start), doc.positionAt(slot.end));
    const items: vscode.CompletionItem[] = [];
    ranked.forEach((r) => {
      const plan = plans.get(r.key);
      if (r.source !== 'bib' && !plan) return;
      const key = plan?.key ?? r.key;
      const item = new vscode.CompletionItem(
        { label: key, detail: r.year ? ` ${r.year}` : undefined, description: r.title ?? undefined },
        vscode.CompletionItemKind.Reference,
      );
      item.range = range;
      item.insertText = key;
      item.sortText = String(items.length).padStart(5, '0');
      item.filterText = [key, r.title, ...(r.authors ?? [])].filter(Boolean).join(' ');
      item.detail = detailOf(r, !!plan);
      item.documentation = documentationOf(r, !!plan, bib.target);
      if (plan) item.command = { command: ADD_ENTRY_COMMAND, title: 'Add its BibTeX entry', arguments: [plan] };
      items.push(item);
    });
    this.log.debug(`citation completion: ${items.length} papers ranked in ${Date.now() - started} ms`);
    // The list is complete for this sentence: VS Code filters it as the author types.
    return new vscode.CompletionList(items, false);
  }
}

/** The corpus's source BibTeX for papers (what Cite keeps: the entry type and venue field), by paper id. */
async function sourceEntries(store: import('../../core/store/types.js').CorpusStore, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length || !store.paperBibtex) return new Map();
  const rows = await store.paperBibtex(ids).catch(() => []);
  return new Map(rows.map((r) => [r.id, r.bibtex]));
}

function detailOf(r: RankedCandidate, adds: boolean): string {
  const where = r.source === 'bib' ? '.bib' : r.source === 'zotero' ? 'Zotero' : 'corpus';
  const support = r.score === null ? 'not in the corpus' : `supports ${r.score.toFixed(2)}`;
  return `${support} · ${where}${adds ? ' (adds its entry)' : ''}`;
}

function documentationOf(r: RankedCandidate, adds: boolean, bib: vscode.Uri): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendText(`${r.title ?? 'Untitled'}\n`);
  const who = r.authors?.length ? r.authors.slice(0, 4).join(', ') + (r.authors.length > 4 ? ' et al.' : '') : '';
  md.appendText([who, r.year].filter(Boolean).join(', '));
  if (r.best) {
    const where = [r.best.page ? `p. ${r.best.page}` : null, r.best.lines ? `lines ${r.best.lines.start}–${r.best.lines.end}` : null]
      .filter(Boolean)
      .join(', ');
    md.appendMarkdown('\n\n---\n\n');
    md.appendText(`Closest sentence${where ? ` (${where})` : ''}, ${r.best.score.toFixed(2)}: “${r.best.text}”`);
  }
  if (adds) md.appendText(`\n\nChoosing it adds its BibTeX entry to ${vscode.workspace.asRelativePath(bib)}.`);
  return md;
}

/** The completion's command: the chosen paper's entry goes into the .bib (unless the key is there by now). */
export async function addEntry(plan: NewEntry, log: vscode.LogOutputChannel): Promise<void> {
  const uri = vscode.Uri.parse(plan.bib);
  const text = (await readText(uri)) ?? '';
  if ((await heavy().BibIndex.read(text)).hasKey(plan.key)) return;
  await appendEntry(uri, await openIfExists(uri), plan.entry);
  log.info(`citation completion: added ${plan.key} to ${uri.fsPath}`);
}
