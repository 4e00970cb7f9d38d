import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseCommand } from '../options.js';
import { reviewSpec } from '../spec.js';
import type { ReviewResult } from '../../core/review/types.js';
import { CliError, printJson, type Command, type StoreDeps } from '../command.js';
import { chatFromFlags, openDb, queryEmbedder } from '../corpus.js';
import { redactSecrets } from '../../core/redact.js';
import { hasQuestionFilters } from '../../core/retrieve/question-filters.js';

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
      cachedCalls: r.trace.total.cachedCalls,
      tokens: r.trace.total.tokens.total,
    },
    trace: r.trace,
    check: r.check,
    filters: hasQuestionFilters(r.decomposition)
      ? {
          yearMin: r.decomposition.yearMin,
          yearMax: r.decomposition.yearMax,
          venues: r.decomposition.venues,
          phrases: r.decomposition.filterPhrases,
        }
      : null,
  };
}

export function createReviewCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const parsed = parseCommand(reviewSpec, args);
      if ('help' in parsed) {
        process.stdout.write(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (positionals.length) throw new CliError(`review takes no positional arguments (got '${positionals[0]}'; use --topic "…")`, 2);
      let document: { text: string; format: 'latex' | 'markdown' } | undefined;
      if (values.paper) {
        const ext = extname(values.paper).toLowerCase();
        document = {
          text: await readText(values.paper),
          format: ext === '.md' || ext === '.markdown' || ext === '.qmd' ? 'markdown' : 'latex',
        };
      }
      if (!values.topic?.trim() && !document)
        throw new CliError('give the topic: --topic "…" (or --paper FILE to use its title and abstract)', 2);
      const format = values.format ?? document?.format ?? 'latex';
      const { papers, candidates, timeout: timeoutMs, unsupported } = values;
      const cite = values.cite ?? 'cite';
      if (values['rerank-url'] && !values['rerank-model']) throw new CliError('--rerank-url needs --rerank-model', 2);
      const provenance = values.provenance === 'on';
      const verify = values.verify === 'on';

      const { runReview, BibIndex, isAbortError, estimateLine, costLine } = await import('../../core/review/index.js');
      const existingBib = values.bib && existsSync(values.bib) ? await BibIndex.read(await readText(values.bib), values.bib) : undefined;
      const chat = await chatFromFlags(values, env, timeoutMs);

      const store = await openDb(values.db, values.schema, env);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      let result: ReviewResult;
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens import first)`);
        const embedder = await queryEmbedder(deps, env, values, meta);
        try {
          result = await runReview({
            store,
            embedder,
            chat,
            topic: values.topic,
            document,
            format,
            citeCommand: cite,
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
            onEstimate: values.quiet
              ? undefined
              : (e) =>
                  process.stderr.write(
                    `corpus-lens: ${e.at === 'start' ? 'cost ahead' : 'cost ahead now'}: ${estimateLine(e)} (${e.basis})\n`,
                  ),
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
                `${costLine(result.trace.total)}\n`,
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
