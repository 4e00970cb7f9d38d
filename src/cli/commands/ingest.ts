import { parseCommand } from '../options.js';
import { ingestSpec } from '../spec.js';
import { CliError, printJson, type Command } from '../command.js';
import { chatFromFlags, embedderFromFlags, openDb } from '../corpus.js';
import { groupProblems } from '../../core/ingest/report.js';
import { redactUrl } from '../../core/redact.js';

/** `corpus-lens ingest`: builds or updates a corpus from paper files, with a progress bar on stderr. */
export const ingestCommand: Command = {
  async run(args) {
    const parsed = parseCommand(ingestSpec, args);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return 0;
    }
    const { values, positionals } = parsed;
    if (values.zotero !== undefined && positionals.length)
      throw new CliError('ingest takes PATHs or --zotero DIR, not both: run it twice', 2);
    if (values.collection !== undefined && values.zotero === undefined) throw new CliError('--collection needs --zotero DIR', 2);
    if (values.zotero === undefined && !positionals.length)
      throw new CliError('ingest needs at least one PATH (a file or a folder), or --zotero DIR', 2);
    const indexPrecision = values.precision;
    // Read the library before opening the corpus: a wrong directory or collection name fails fast and changes nothing.
    const zotero = values.zotero !== undefined ? await zoteroUnits(values.zotero, values.collection) : undefined;
    const creating = await newCorpusFolder(values.db);
    // So are the paths: a mistyped one fails before a new corpus folder is made.
    const files = zotero ? undefined : await paperFiles(positionals, values.glob, creating);
    const flags = { embedder: values.embedder, model: values.model, dimensions: values.dimensions, prefixes: values.prefixes };
    // A new corpus folder is made only once the embedder answers its size: an unreachable endpoint or a wrong model
    // name leaves no empty corpus behind.
    const forNewCorpus = creating ? await embedderFromFlags(flags) : undefined;
    if (forNewCorpus) await (await import('../../core/ingest/corpus-embedder.js')).embedderDimensions(forNewCorpus, null);
    // The store's notices (a serial index build) join the summary's warnings: with --progress stderr carries JSON only.
    const notices: string[] = [];
    const store = await openDb(values.db, undefined, process.env, undefined, { create: true, onNotice: (m) => notices.push(m) });
    // A new corpus is worth a line: a mistyped --db otherwise goes unnoticed until a query finds nothing.
    // (Not with --progress: stderr then carries JSON lines only.)
    if (creating && !values.progress) process.stderr.write(`corpus-lens: creating a new corpus at ${creating}\n`);
    try {
      if (store.readOnly) throw new CliError('this corpus is read only (CorpusStudio schema)');
      const corpus = await store.meta();
      if (indexPrecision && corpus?.indexPrecision && corpus.indexPrecision !== indexPrecision) {
        throw new CliError(
          `this corpus's indexes are ${corpus.indexPrecision}; --precision ${indexPrecision} applies to a new corpus only`,
        );
      }
      const embedder = forNewCorpus ?? (await embedderFromFlags({ ...flags, corpus }));
      const { ingest, ingestUnits } = await import('../../core/ingest/pipeline.js');
      // An embedded corpus has a measured size limit: say so before the load passes its safe share. A line on
      // stderr only (stdout and --json stay as they are; with --progress stderr carries JSON lines only).
      if (!values.progress && (await isEmbedded(values.db))) {
        const { corpusCapacityWarning, estimateLoad } = await import('../../core/store/ops/capacity.js');
        // A library's items are estimated from what each will index (PDF pages, Zotero's text, the abstract).
        const load = zotero ? await estimateLoad(zotero) : files!.length;
        const warning = await corpusCapacityWarning(store, load, process.env);
        if (warning) process.stderr.write(`corpus-lens: warning: ${warning.message}\n`);
      }
      const bar = await progressBar();
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      try {
        const options = {
          embedder,
          indexPrecision,
          glob: values.glob,
          reindex: values.reindex,
          // Only when asked on the command line: an ingest never calls a model because OPENAI_BASE_URL is set.
          chat: values['llm-base-url'] ? await chatFromFlags(values, process.env) : null,
          signal: controller.signal,
          onProgress: (p: { filesDone: number; filesTotal: number; sentencesPerSecond: number }) => {
            bar?.update(p.filesDone, p.filesTotal, `${Math.round(p.sentencesPerSecond)} sentences/s`);
            if (values.progress) process.stderr.write(JSON.stringify(p) + '\n');
          },
        };
        const summary = zotero ? await ingestUnits(store, zotero, options) : await ingest(store, positionals, options);
        summary.warnings.push(...notices.map((reason) => ({ file: redactUrl(values.db!), reason })));
        bar?.stop();
        if (values.json) printJson(summary);
        else {
          process.stdout.write(
            `${summary.papers} papers, ${summary.sentences} sentences added; ${summary.skipped} unchanged; ${summary.merged ? `${summary.merged} duplicates merged; ` : ''}${summary.retitled ? `${summary.retitled} made-up titles replaced; ` : ''}${summary.failed.length} failed${summary.warnings.length ? `; ${summary.warnings.length} warnings` : ''}\n`,
          );
          for (const f of summary.failed) process.stdout.write(`  failed: ${f.file}: ${f.reason}\n`);
          for (const g of groupProblems(summary.warnings))
            process.stdout.write(`  warning: ${g.file}: ${g.reason}${g.count > 1 ? ` (×${g.count})` : ''}\n`);
        }
        return 0; // the run completed; per-file failures are in the summary (a folder often holds a few bad PDFs)
      } finally {
        process.off('SIGINT', stop);
        bar?.stop();
      }
    } finally {
      await store.close();
    }
  },
};

/** The library's works as pipeline units; a missing database or unknown collection is the user's error. */
async function zoteroUnits(dir: string, collection: string | undefined) {
  const { zoteroUnits: units } = await import('../../core/sources/zotero/index.js');
  try {
    return (await units(dir, { collection })).units;
  } catch (e) {
    throw new CliError(`--zotero ${dir}: ${(e as Error).message}`);
  }
}

/** The paper files the PATHs name; a missing PATH, or none to add to a corpus not yet created, is the user's error. */
async function paperFiles(paths: string[], glob: string | undefined, creating: string | null): Promise<string[]> {
  const { collectFiles } = await import('../../core/ingest/pipeline.js');
  let files: string[];
  try {
    files = await collectFiles(paths, glob);
  } catch (e) {
    throw new CliError(`${(e as Error).message}${creating ? ' (no corpus was created)' : ''}`);
  }
  if (!files.length && creating) {
    throw new CliError(
      `no paper files (PDF, LaTeX, arXiv HTML, Markdown, .bib) in ${paths.join(', ')}${glob ? ` matching ${glob}` : ''}: nothing to add, so no corpus was created`,
    );
  }
  return files;
}

/** A progress bar on stderr when it is a terminal (cli-progress); nothing when piped. */
async function progressBar(): Promise<{ update(done: number, total: number, rate: string): void; stop(): void } | undefined> {
  if (!process.stderr.isTTY) return undefined;
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    { stream: process.stderr, format: 'ingest [{bar}] {value}/{total} files · {rate} · ETA {eta_formatted}', hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, rate) {
      if (!started) {
        bar.start(total, 0, { rate });
        started = true;
      }
      bar.update(done, { rate });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** Whether --db names an embedded (PGlite) corpus folder (not memory://, not a server). */
async function isEmbedded(db: string | undefined): Promise<boolean> {
  if (!db || db.startsWith('memory://')) return false;
  const { targetKind } = await import('../../core/store/index.js');
  return targetKind(db) === 'pglite';
}

/** The resolved folder when --db names an embedded corpus that does not exist yet. */
async function newCorpusFolder(db: string | undefined): Promise<string | null> {
  if (!db || db.startsWith('memory://')) return null;
  const { targetKind } = await import('../../core/store/index.js');
  if (targetKind(db) !== 'pglite') return null;
  const { isCorpusFolder } = await import('../../core/store/backends/pglite.js');
  const { resolve } = await import('node:path');
  return isCorpusFolder(resolve(db)) ? null : resolve(db);
}
