import { readFile } from 'node:fs/promises';
import { parseCommand } from '../options.js';
import { importSpec } from '../spec.js';
import { embedderFromFlags, openDb } from '../corpus.js';
import { CliError, outputs, writeJson, type Command, type StoreDeps } from '../command.js';

export function createImportCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const parsed = parseCommand(importSpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (positionals.length) throw new CliError(`import takes no positional arguments (got '${positionals[0]}')`, 2);
      if (!values.documents) throw new CliError('--documents Document.jsonl is required', 2);
      const { parseJsonl, documentRow, sourceRow, papersFromRows, importPapers, DEFAULT_IMPORT_CONTEXT } =
        await import('../../core/ingest/seed-rows.js');
      const read = async (file: string) => {
        try {
          return await readFile(file, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
      };
      const docs = parseJsonl(await read(values.documents), values.documents, documentRow);
      const srcs = values.sources ? parseJsonl(await read(values.sources), values.sources, sourceRow) : { rows: [], errors: [] };
      const errors = [...srcs.errors, ...docs.errors];
      const flags = { embedder: values.embedder, model: values.model, dimensions: values.dimensions, prefixes: values.prefixes };
      const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))(flags);
      const store = await openDb(values.db, undefined, env, undefined, { create: true });
      try {
        const result = await importPapers(store, embedder, papersFromRows(docs.rows, srcs.rows), {
          documentsFile: values.documents,
          context: values.context === 'none' ? 'none' : DEFAULT_IMPORT_CONTEXT,
        });
        errors.push(...result.errors);
        for (const e of errors) err(`corpus-lens: ${e.file}:${e.line}: ${e.message}\n`);
        writeJson(out, {
          papers: result.papers,
          sentences: result.sentences,
          skipped: result.skipped,
          embedded: result.embedded,
          badLines: errors.length,
          model: embedder.model,
        });
      } finally {
        await store.close();
      }
      if (errors.length) {
        const first = errors[0];
        throw new CliError(
          `${errors.length} bad line${errors.length > 1 ? 's' : ''} not imported (first: ${first.file}:${first.line}: ${first.message})`,
        );
      }
      return 0;
    },
  };
}

export const importCommand = createImportCommand();
