// "Corpus Lens: Add Papers…": one menu for every way of getting papers into the corpus. From Zotero (zotero.ts)
// and from a folder (Index Folder…); the web entries: this
// paper's bibliography (each entry resolved to open full text, kept under its own key), a search of arXiv /
// Semantic Scholar / OpenAlex (query, years, count → multi-select review of the candidates), a list of DOIs or
// arXiv ids. Fetching runs under a cancellable progress notification ("12/40 papers · 3 failed"); every entry's
// outcome goes to the log and failures are counted in the summary.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Candidate, FetchSummary, SearchSource, SourcesConfig } from '../../core/sources/index.js';
import { isPaperDocument } from '../shared/documents.js';
import { heavy } from '../load.js';
import { readSettings } from '../shared/settings.js';
import { addFromZotero } from '../zotero/zotero.js';
import type { AddPapersDeps, AddPapersEntry, AddPapersInput } from './types.js';

const SEARCHES: { source: SearchSource; name: string }[] = [
  { source: 'arxiv', name: 'arXiv' },
  { source: 's2', name: 'Semantic Scholar' },
  { source: 'openalex', name: 'OpenAlex' },
];

export const ADD_PAPERS_ENTRIES: AddPapersEntry[] = [
  {
    id: 'zotero',
    label: '$(library) From Zotero (library or collection)',
    detail: "Each item's PDF, else Zotero's extracted text, else its abstract, under its citation key",
    run: (deps, input) => addFromZotero(deps, input?.zotero),
  },
  {
    id: 'folder',
    label: '$(folder) From a folder',
    detail: 'PDF, LaTeX, Markdown, arXiv HTML and .bib files (Index Folder…)',
    run: async () => void (await vscode.commands.executeCommand('corpusLens.indexFolder')),
  },
  {
    id: 'bibliography',
    label: "$(book) From this paper's bibliography",
    detail: 'Each .bib entry: arXiv source, HTML or open-access PDF where there is one, else its abstract; kept under its own key',
    run: (deps, input) => fromBibliography(deps, input?.bibFile),
  },
  ...SEARCHES.map(({ source, name }): AddPapersEntry => ({
    id: `search-${source}`,
    label: `$(search) Search ${name}`,
    detail: `A query, years and a count; review the candidates, then fetch their open full text`,
    run: (deps) => fromSearch(deps, source, name),
  })),
  {
    id: 'ids',
    label: '$(link) From DOIs or arXiv ids',
    detail: 'Paste identifiers separated by spaces, commas or new lines',
    run: (deps, input) => fromIds(deps, input?.ids),
  },
  {
    id: 'keys',
    label: '$(key) Set a Semantic Scholar or OpenAlex API key…',
    detail: "Optional; kept in VS Code's secret storage",
    run: setSourceKey,
  },
];

/** "Corpus Lens: Add Papers…": entry `entryId` (a script's or a test's, with its `input`), else the one the user picks. */
export async function addPapers(deps: AddPapersDeps, entryId?: string, input?: AddPapersInput): Promise<FetchSummary | void> {
  const entry = entryId
    ? ADD_PAPERS_ENTRIES.find((e) => e.id === entryId)
    : await vscode.window.showQuickPick(ADD_PAPERS_ENTRIES, { title: 'Corpus Lens: Add Papers', matchOnDetail: true });
  if (!entry) return;
  return entry.run(deps, input);
}

/** The sources configuration from the settings; keys from secret storage (bound to the configured host) or the environment. */
async function sourcesConfigFor(deps: AddPapersDeps): Promise<SourcesConfig> {
  const s = readSettings().sources;
  const config = heavy().sourcesConfig({
    arxivApiUrl: s.arxivApiUrl,
    arxivUrl: s.arxivUrl,
    s2Url: s.s2Url,
    openalexUrl: s.openalexUrl,
    contact: s.contact,
    openLicenseOnly: s.openLicenseOnly,
    cacheDir: path.join(deps.context.globalStorageUri.fsPath, 'downloads'),
  });
  config.s2ApiKey = (await deps.secrets.get('s2', config.s2Url)) ?? process.env.SEMANTIC_SCHOLAR_API_KEY;
  config.openalexApiKey = (await deps.secrets.get('openalex', config.openalexUrl)) ?? process.env.OPENALEX_API_KEY;
  return config;
}

async function fromBibliography(deps: AddPapersDeps, bibFile?: string): Promise<FetchSummary | void> {
  const bib = bibFile ? vscode.Uri.file(bibFile) : await chooseBibFile(deps);
  if (!bib) return;
  const text = Buffer.from(await vscode.workspace.fs.readFile(bib)).toString('utf8');
  const { candidates, errors } = await heavy().candidatesFromBib(text, bib.fsPath);
  for (const e of errors) deps.log.warn(`${path.basename(bib.fsPath)}: ${e.file}: ${e.reason}`);
  if (!candidates.length) return void vscode.window.showInformationMessage(`Corpus Lens: ${path.basename(bib.fsPath)} has no entries.`);
  return fetchInto(deps, candidates, `${candidates.length} entries of ${path.basename(bib.fsPath)}`);
}

/** The .bib the active paper names (\bibliography / \addbibresource / front matter), the setting, or one the user picks. */
async function chooseBibFile(deps: AddPapersDeps): Promise<vscode.Uri | undefined> {
  const editor = deps.paperEditor();
  const named: vscode.Uri[] = [];
  if (editor && isPaperDocument(editor.document)) {
    const doc = editor.document;
    const format = doc.languageId === 'latex' ? 'latex' : 'markdown';
    const dir = path.dirname(doc.uri.fsPath);
    for (const name of heavy().bibFilesNamedBy(doc.getText(), format)) {
      const file = path.resolve(dir, name.endsWith('.bib') ? name : `${name}.bib`);
      try {
        await vscode.workspace.fs.stat(vscode.Uri.file(file));
        named.push(vscode.Uri.file(file));
      } catch {
        deps.log.warn(`the paper names ${name}, which is not there`);
      }
    }
  }
  const setting = readSettings(editor?.document.uri).citation.bibFile;
  if (!named.length && setting) named.push(vscode.Uri.file(path.resolve(editor ? path.dirname(editor.document.uri.fsPath) : '', setting)));
  if (named.length === 1) return named[0];
  if (named.length > 1) {
    const pick = await vscode.window.showQuickPick(
      named.map((u) => ({ label: path.basename(u.fsPath), description: u.fsPath, uri: u })),
      { title: 'Corpus Lens: which bibliography?' },
    );
    return pick?.uri;
  }
  const chosen = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { BibTeX: ['bib'] },
    openLabel: 'Use this bibliography',
  });
  return chosen?.[0];
}

async function fromSearch(deps: AddPapersDeps, source: SearchSource, name: string): Promise<void> {
  const query = await vscode.window.showInputBox({
    title: `Corpus Lens: search ${name}`,
    prompt: 'Words to search for',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? null : 'Type a query'),
  });
  if (!query) return;
  const years = await vscode.window.showInputBox({
    title: `Corpus Lens: search ${name}`,
    prompt: 'Years: 2020, 2018-2024, 2019- (empty: any)',
    ignoreFocusOut: true,
    validateInput: (v) => (parseYears(v) ? null : 'A year (2020), a range (2018-2024) or an open range (2019-)'),
  });
  if (years === undefined) return;
  const count = await vscode.window.showInputBox({
    title: `Corpus Lens: search ${name}`,
    prompt: 'How many candidates (1-200)',
    value: '20',
    ignoreFocusOut: true,
    validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 200 ? null : 'A number from 1 to 200'),
  });
  if (!count) return;
  const range = parseYears(years)!;
  const config = await sourcesConfigFor(deps);
  const found = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Corpus Lens: searching ${name}…`, cancellable: true },
    (_p, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      const ctx = heavy().sourceContext(config, { signal: controller.signal });
      return heavy().searchSource(ctx, source, query, { max: Number(count), ...range });
    },
  );
  if (!found.length) return void vscode.window.showInformationMessage(`Corpus Lens: ${name} found nothing for "${query}".`);
  const picks = await vscode.window.showQuickPick(
    found.map((c) => ({
      label: c.title ?? '(no title)',
      description: [firstAuthor(c), c.year].filter(Boolean).join(' · '),
      detail: [c.arxivId ? `arXiv:${c.arxivId}` : null, c.doi, c.pdfUrl ? 'open PDF' : null, c.license].filter(Boolean).join(' · '),
      picked: true,
      candidate: c,
    })),
    {
      title: `Corpus Lens: ${found.length} candidates from ${name}: pick the papers to add`,
      canPickMany: true,
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    },
  );
  if (!picks?.length) return;
  await fetchInto(
    deps,
    picks.map((p) => p.candidate),
    `${picks.length} papers from ${name}`,
  );
}

async function fromIds(deps: AddPapersDeps, given?: string): Promise<FetchSummary | void> {
  const text =
    given ??
    (await vscode.window.showInputBox({
      title: 'Corpus Lens: add papers by DOI or arXiv id',
      prompt: 'e.g. 10.1038/s41592-019-0686-2 2106.01345',
      ignoreFocusOut: true,
    }));
  if (!text?.trim()) return;
  const { candidates, errors } = heavy().candidatesFromIds([text]);
  for (const e of errors) deps.log.warn(`${e.file}: ${e.reason}`);
  if (errors.length) void vscode.window.showWarningMessage(`Corpus Lens: not a DOI or arXiv id: ${errors.map((e) => e.file).join(', ')}`);
  if (candidates.length) return fetchInto(deps, candidates, `${candidates.length} identifiers`);
}

async function setSourceKey(deps: AddPapersDeps): Promise<void> {
  const s = readSettings().sources;
  const pick = await vscode.window.showQuickPick(
    [
      {
        label: 'Semantic Scholar',
        description: s.s2Url || 'api.semanticscholar.org',
        service: 's2' as const,
        url: s.s2Url || 'https://api.semanticscholar.org/graph/v1',
      },
      {
        label: 'OpenAlex',
        description: s.openalexUrl || 'api.openalex.org',
        service: 'openalex' as const,
        url: s.openalexUrl || 'https://api.openalex.org',
      },
    ],
    { title: 'Corpus Lens: API key for which service?' },
  );
  if (!pick) return;
  const key = await vscode.window.showInputBox({
    title: `Corpus Lens: ${pick.label} API key (sent only to ${new URL(pick.url).host})`,
    password: true,
    ignoreFocusOut: true,
    prompt: 'Empty: remove the stored key',
  });
  if (key === undefined) return;
  if (key.trim()) await deps.secrets.set(pick.service, pick.url, key.trim());
  else await deps.secrets.delete(pick.service, pick.url);
  void vscode.window.showInformationMessage(`Corpus Lens: ${pick.label} key ${key.trim() ? 'stored' : 'removed'}.`);
}

/** Fetches the candidates' open full text into the configured corpus, with progress, cancel and a per-entry log. */
async function fetchInto(deps: AddPapersDeps, candidates: Candidate[], what: string): Promise<FetchSummary | void> {
  const { corpus, log } = deps;
  const settings = readSettings();
  if (settings.corpus.schema === 'corpusStudio') {
    return void vscode.window.showWarningMessage(
      'Corpus Lens: a CorpusStudio database is read only; connect to a Corpus Lens corpus to add papers.',
    );
  }
  const config = await sourcesConfigFor(deps);
  const release = corpus.writingTo(settings.corpus.backend === 'embedded' ? corpus.embeddedPath(settings) : settings.corpus.url);
  log.info(`adding ${what}`);
  let summary: FetchSummary;
  try {
    summary = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Corpus Lens: adding ${what}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        const h = heavy();
        await corpus.drop(); // one writer for the embedded corpus
        const { store, embedder } = await corpus.openForIndexing();
        try {
          let reported = 0;
          return await h.fetchToCorpus(store, h.sourceContext(config, { signal: controller.signal }), candidates, {
            embedder,
            signal: controller.signal,
            onProgress: (p) => {
              const pct = p.phase === 'fetching' && p.total ? (100 * p.done) / p.total : 0;
              progress.report({ increment: Math.max(0, pct - reported), message: h.progressLine(p) });
              reported = Math.max(reported, pct);
              const e = p.entry;
              if (e) {
                const line = `${h.entryName(e)}: ${h.entryStatus(e)}${e.from ? ` (${e.from})` : ''}${e.notes.length ? ` — ${e.notes.join('; ')}` : ''}`;
                if (e.failed) log.warn(line);
                else log.info(line);
              }
            },
          });
        } finally {
          await store.close();
        }
      },
    );
  } finally {
    release();
  }
  const o = summary.outcomes;
  const line = `${summary.papers} paper${summary.papers === 1 ? '' : 's'} added (${o.latex} LaTeX, ${o.html} HTML, ${o.pdf} PDF, ${o.metadata} abstract only); ${o['not-found']} not found; ${o['in-corpus']} already there; ${summary.failed.length} failed`;
  log.info(line);
  // Nothing came in (offline, nothing found): say why first ("cannot reach arXiv (no network?)"), the counts after.
  const nothing = heavy().nothingFetched(summary);
  const message = nothing ? `Corpus Lens: ${nothing[0].toUpperCase()}${nothing.slice(1)} (${line}).` : `Corpus Lens: ${line}.`;
  const show = summary.failed.length || nothing ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  // Not awaited: the command ends when the papers are in, not when the notification is closed.
  void Promise.resolve(show(`${message} Each paper's outcome is in the log.`, 'Show Log')).then((c) => c === 'Show Log' && log.show());
  return summary;
}

/** '2020' → {since: 2020, until: 2020}; '2018-2024'; '2019-'; '' → {}; anything else → null. */
export function parseYears(v: string): { since?: number; until?: number } | null {
  const t = v.trim();
  if (!t) return {};
  const m = /^(\d{4})?\s*(-)?\s*(\d{4})?$/.exec(t);
  if (!m || (!m[1] && !m[3])) return null;
  const since = m[1] ? Number(m[1]) : undefined;
  const until = m[2] ? (m[3] ? Number(m[3]) : undefined) : since;
  if (since && until && since > until) return null;
  return { since, until };
}

function firstAuthor(c: Candidate): string {
  if (!c.authors.length) return '';
  return `${c.authors[0]}${c.authors.length > 1 ? ' et al.' : ''}`;
}
