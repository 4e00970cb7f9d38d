import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseOptions } from '../options.js';
import type { CitationCommand } from '../../core/bib/cite.js';
import type { ReviewResult } from '../../core/review/types.js';
import { CliError, negativeValues, printJson, type Command } from '../command.js';
import { embedderFromFlags, openDb, type StoreDeps } from './import.js';
import { redactSecrets } from '../../core/redact.js';

const USAGE = `Usage: corpus-lens review --db DB (--topic TEXT | --paper FILE.tex|.md) [--format latex|markdown] [--out FILE]
                          [--bib FILE] [--llm-base-url URL] [--llm-model M] [--json] [--cite cite|citep|citet|autocite|parencite]
                          [--tables] [--papers 50] [--candidates 256] [--rerank-url URL --rerank-model M] [--rerank mmr]
                          [--embedder offline|neural|openai] [--model M] [--prefixes P] [--schema corpusStudio] [--timeout MS] [--quiet]
                          [--unsupported remove|flag] [--provenance on|off] [--verify on|off]
  Writes a related-work section from the corpus: every claim cites a corpus paper, every citation is backed by a
  quote verified against the paper's stored text. The LLM is any OpenAI-compatible chat endpoint: --llm-base-url
  or OPENAI_BASE_URL, key in OPENAI_API_KEY, model --llm-model (default gpt-4o-mini). Without an endpoint: an
  evidence outline (clusters of retrieved sentences with citation keys, as comments) to write from.
  The section goes to --out or stdout. BibTeX of the cited papers: appended to --bib FILE (entries already there,
  by DOI or title, are reused, not repeated); without --bib it follows the section after a marker line.
  Every generated sentence is checked against the verified quotes of the papers it cites (offline; with an LLM
  also one verification call per section, --verify off to skip): unsupported or uncited claims, citations that do
  not resolve to a paper among the section's quotes, and copies of corpus text that are not quotations are removed
  (--unsupported flag keeps them, visibly flagged). Each sentence's backing quotes follow its paragraph as LaTeX
  comments / Markdown footnotes (--provenance off to omit). --tables adds a comparison table to list sections: one
  row per cited paper whose own quotes support what the list says of it.
  --json prints {text, bibtex, counts, sentences (per-sentence report), trace (steps, durations, tokens), check}
  instead. Progress goes to stderr.`;

const CITES: readonly CitationCommand[] = ['cite', 'citep', 'citet', 'autocite', 'parencite'];

function intFlag(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new CliError(`--${name} must be an integer ≥ ${min} (got '${v}')`, 2);
  return n;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The --json shape: the trace and the check, plus the counts users look for first. */
export function reviewJson(r: ReviewResult) {
  const step = (name: string) => r.trace.steps.find((s) => s.step === name)?.counts ?? {};
  return {
    mode: r.mode,
    model: r.trace.model,
    topic: r.topic,
    format: r.format,
    text: r.text,
    bibtex: r.bibtex,
    cited: r.cited.map((c) => ({ key: c.key, paperId: c.paper.id, title: c.paper.title, reused: c.reused })),
    /** Per generated sentence: cited keys, support score, backing quote ids, verdict (removed ones too). */
    sentences: r.sections.flatMap((s) =>
      s.sentences.map((x) => ({
        id: x.id,
        section: s.title,
        text: x.text,
        kept: x.kept ?? x.verdict !== 'unsupported',
        citedKeys: x.cited.map((id) => r.cited.find((c) => c.shortId === id)?.key).filter((k): k is string => !!k),
        support: x.support,
        backingQuotes: x.quoteIds,
        verdict: x.verdict,
        ...(x.llmVerdict ? { modelVerdict: x.llmVerdict } : {}),
        reasons: x.reasons,
      })),
    ),
    sections: r.sections.map((s) => ({
      title: s.title,
      format: s.format,
      cited: s.cited,
      quotes: s.quoteIds.length,
      removedCitations: s.removedCitations,
      copiedSpans: s.copiedSpans,
      uncitedSentences: s.uncitedSentences,
    })),
    counts: {
      candidates: step('retrieve').candidates ?? 0,
      papers: step('rerank').papers ?? 0,
      verifiedQuotes: step('quotes').verified ?? 0,
      droppedQuotes: step('quotes').dropped ?? 0,
      removedCitations: step('check').removedCitations ?? 0,
      copiedSpans: step('check').copiedSpans ?? 0,
      unsupportedRemoved: step('check').unsupportedRemoved ?? 0,
      unsupportedFlagged: step('check').unsupportedFlagged ?? 0,
      citationsConverted: step('check').citationsConverted ?? 0,
      quotationsMade: step('check').quotationsMade ?? 0,
      llmCalls: r.trace.total.llmCalls,
      tokens: r.trace.total.tokens.total,
    },
    trace: r.trace,
    check: r.check,
  };
}

export function createReviewCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'generate a cited related-work section (or, without an LLM, an evidence outline) from the corpus',
    async run(args) {
      const env = deps.env ?? process.env;
      const { values, positionals } = parseOptions({
        args: negativeValues(args, ['json', 'tables', 'quiet', 'help']),
        allowPositionals: true,
        options: {
          db: { type: 'string' },
          topic: { type: 'string' },
          paper: { type: 'string' },
          format: { type: 'string' },
          out: { type: 'string' },
          bib: { type: 'string' },
          'llm-base-url': { type: 'string' },
          'llm-model': { type: 'string' },
          json: { type: 'boolean' },
          cite: { type: 'string' },
          tables: { type: 'boolean' },
          papers: { type: 'string' },
          candidates: { type: 'string' },
          rerank: { type: 'string' },
          'rerank-url': { type: 'string' },
          'rerank-model': { type: 'string' },
          embedder: { type: 'string' },
          prefixes: { type: 'string' },
          model: { type: 'string' },
          schema: { type: 'string' },
          timeout: { type: 'string' },
          quiet: { type: 'boolean' },
          unsupported: { type: 'string' },
          provenance: { type: 'string' },
          verify: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        process.stdout.write(USAGE + '\n');
        return 0;
      }
      if (positionals.length) throw new CliError(`review takes no positional arguments (got '${positionals[0]}'; use --topic "…")`, 2);
      let document: { text: string; format: 'latex' | 'markdown' } | undefined;
      if (values.paper) {
        const ext = extname(values.paper).toLowerCase();
        document = { text: await readText(values.paper), format: ext === '.md' || ext === '.markdown' || ext === '.qmd' ? 'markdown' : 'latex' };
      }
      if (!values.topic?.trim() && !document) throw new CliError('give the topic: --topic "…" (or --paper FILE to use its title and abstract)', 2);
      const format = values.format ?? document?.format ?? 'latex';
      if (format !== 'latex' && format !== 'markdown') throw new CliError(`--format must be latex or markdown (got '${format}')`, 2);
      const cite = (values.cite ?? 'cite').replace(/^\\/, '');
      if (!CITES.includes(cite as CitationCommand)) throw new CliError(`--cite must be one of ${CITES.join(', ')} (got '${values.cite}')`, 2);
      const papers = intFlag('papers', values.papers, 1);
      const candidates = intFlag('candidates', values.candidates, 1);
      const timeoutMs = intFlag('timeout', values.timeout, 1);
      const baseURL = values['llm-base-url'] || env.OPENAI_BASE_URL || '';
      if (values.rerank !== undefined && values.rerank !== 'mmr' && values.rerank !== 'llm') {
        throw new CliError(`--rerank must be llm or mmr (got '${values.rerank}'); an HTTP reranker is --rerank-url URL --rerank-model M`, 2);
      }
      if (values['rerank-url'] && !values['rerank-model']) throw new CliError('--rerank-url needs --rerank-model', 2);
      const unsupported = values.unsupported ?? 'remove';
      if (unsupported !== 'remove' && unsupported !== 'flag') throw new CliError(`--unsupported must be remove or flag (got '${values.unsupported}')`, 2);
      const onOff = (name: string, v: string | undefined) => {
        if (v === undefined || v === 'on') return true;
        if (v === 'off') return false;
        throw new CliError(`--${name} must be on or off (got '${v}')`, 2);
      };
      const provenance = onOff('provenance', values.provenance);
      const verify = onOff('verify', values.verify);

      const { runReview, OpenAIChat, BibIndex, isAbortError } = await import('../../core/review/index.js');
      const existingBib = values.bib && existsSync(values.bib) ? await BibIndex.read(await readText(values.bib), values.bib) : undefined;
      const chat = baseURL
        ? new OpenAIChat({ baseURL, model: values['llm-model'] || 'gpt-4o-mini', apiKey: env.OPENAI_API_KEY || undefined, timeoutMs })
        : null;

      const store = await openDb(values.db, values.schema, env);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      let result: ReviewResult;
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens import first)`);
        const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))({
          embedder: values.embedder,
          model: values.model,
          prefixes: values.prefixes,
          corpus: meta,
        });
        try {
          result = await runReview({
            store,
            embedder,
            chat,
            topic: values.topic,
            document,
            format,
            citeCommand: cite as CitationCommand,
            tables: values.tables ?? false,
            papers,
            candidates,
            unsupported,
            provenance,
            verify,
            existingBib,
            rerank: values['rerank-url']
              ? { kind: 'http', url: values['rerank-url'], model: values['rerank-model']!, apiKey: env.RERANK_API_KEY || undefined }
              : values.rerank === 'mmr'
                ? { kind: 'mmr' }
                : undefined,
            signal: controller.signal,
            onProgress: values.quiet
              ? undefined
              : (e) => {
                  if (e.phase === 'start') process.stderr.write(`corpus-lens: [${e.index}/${e.total}] ${e.message}…\n`);
                },
          });
        } catch (err) {
          if (isAbortError(err)) throw new CliError('cancelled', 130);
          throw err;
        }
      } finally {
        process.off('SIGINT', onSigint);
        await store.close();
      }

      const bibTarget = values.bib;
      if (bibTarget) {
        if (result.newBibtex) {
          if (existsSync(bibTarget)) {
            const prev = await readText(bibTarget);
            await appendFile(bibTarget, (prev.endsWith('\n') || !prev ? '' : '\n') + '\n' + result.newBibtex);
          } else await writeFile(bibTarget, result.newBibtex);
        }
      }
      let output = result.text;
      if (!bibTarget && result.bibtex) {
        output +=
          format === 'latex'
            ? `\n% ==== BibTeX entries of the cited papers (move them to your .bib file) ====\n${result.bibtex}`
            : `\n<!-- BibTeX entries of the cited papers (move them to your .bib file) -->\n\`\`\`bibtex\n${result.bibtex}\`\`\`\n`;
      }
      if (values.out) await writeFile(values.out, output);
      if (values.json) printJson(reviewJson(result), true);
      else if (!values.out) process.stdout.write(output);
      if (!values.quiet) {
        const c = reviewJson(result).counts;
        process.stderr.write(
          result.mode === 'outline'
            ? `corpus-lens: no LLM configured (--llm-base-url / OPENAI_BASE_URL): wrote an evidence outline of ${result.cited.length} papers\n`
            : `corpus-lens: ${result.sections.length} sections citing ${result.cited.length} papers; ${c.droppedQuotes} unverifiable quotes dropped, ` +
                `${c.removedCitations} citations removed, ${c.unsupportedRemoved} unsupported sentences removed${c.unsupportedFlagged ? `, ${c.unsupportedFlagged} flagged` : ''}, ` +
                `${c.llmCalls} LLM calls, ${c.tokens} tokens\n`,
        );
        if (!result.check.ok) {
          process.stderr.write(
            `corpus-lens: check: ${result.check.flaggedSentences ?? 0} unsupported sentences kept flagged, ${result.check.copiedSpans.length} copied spans flagged, ${result.check.citationsWithoutVerifiedQuote.length} unbacked citations, ` +
              `${result.check.citedKeysMissingFromBib.length} keys missing from the BibTeX\n`,
          );
        }
      }
      return 0;
    },
  };
}

export const reviewCommand = createReviewCommand();
