import { parseArgs } from 'node:util';
import { CliError, printJson, type Command } from '../command.js';
import { embedderFromFlags, openDb } from './import.js';

const USAGE = `Usage: corpus-lens ingest --db DB [--glob PATTERN] [--embedder offline|openai] [--model M] [--json] PATH…
  PATH: PDF, LaTeX (main file with its \\input/\\include parts), arXiv HTML, Markdown and .bib files, or folders of them.
  Unchanged files are skipped; a run stopped at any point can be run again. Per-file failures are listed at the end.
  --json prints {papers, sentences, skipped, failed:[{file, reason}]}; --progress writes one JSON line per file to
  stderr {filesDone, filesTotal, papers, sentences, sentencesPerSecond, etaSeconds, file}. Exit 0 when the run completes, failures included.`;

/** `corpus-lens ingest`: builds or updates a corpus from paper files, with a progress bar on stderr. */
export const ingestCommand: Command = {
  summary: 'add PDF, LaTeX, arXiv HTML, Markdown and BibTeX papers (files or folders) to a corpus',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        db: { type: 'string' },
        glob: { type: 'string' },
        embedder: { type: 'string' },
        model: { type: 'string' },
        json: { type: 'boolean' },
        progress: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    if (!positionals.length) throw new CliError('ingest needs at least one PATH (a file or a folder)');
    const store = await openDb(values.db, undefined, process.env);
    try {
      if (store.readOnly) throw new CliError('this corpus is read only (CorpusStudio schema)');
      const embedder = await embedderFromFlags({ embedder: values.embedder, model: values.model, corpus: await store.meta() });
      const { ingest } = await import('../../core/ingest/pipeline.js');
      const bar = await progressBar();
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      try {
        const summary = await ingest(store, positionals, {
          embedder,
          glob: values.glob,
          signal: controller.signal,
          onProgress: (p) => {
            bar?.update(p.filesDone, p.filesTotal, `${Math.round(p.sentencesPerSecond)} sentences/s`);
            if (values.progress) process.stderr.write(JSON.stringify(p) + '\n');
          },
        });
        bar?.stop();
        if (values.json) printJson(summary);
        else {
          process.stdout.write(`${summary.papers} papers, ${summary.sentences} sentences added; ${summary.skipped} unchanged; ${summary.failed.length} failed\n`);
          for (const f of summary.failed) process.stdout.write(`  failed: ${f.file}: ${f.reason}\n`);
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

/** A progress bar on stderr when it is a terminal (cli-progress); nothing when piped. */
async function progressBar(): Promise<{ update(done: number, total: number, rate: string): void; stop(): void } | undefined> {
  if (!process.stderr.isTTY) return undefined;
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar({ stream: process.stderr, format: 'ingest [{bar}] {value}/{total} files · {rate} · ETA {eta_formatted}', hideCursor: true }, Presets.shades_classic);
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
