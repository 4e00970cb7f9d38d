import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseOptions } from '../options.js';
import type { AskElement, AskTurn, Conversation } from '../../core/ask/index.js';
import { redactSecrets } from '../../core/redact.js';
import { CliError, negativeValues, type Command } from '../command.js';
import { embedderFromFlags, openDb, outputs, type StoreDeps } from './import.js';

const USAGE = `Usage: corpus-lens ask --db DB [--history FILE] [--llm-base-url URL] [--llm-model M] [--json] [--threshold T]
                       [--evidence 8] [--verify on|off] [--embedder offline|neural|openai] [--model M] [--prefixes P]
                       [--schema corpusStudio] [--timeout MS] [--quiet] QUESTION
  Answers a question from the corpus. The question is searched (hybrid: keyword + vector; on a corpus of more
  than 200 papers the best papers first, then their sentences); every evidence sentence is checked against its
  paper's stored text. When the evidence does not contain the question's terms (answerability below --threshold,
  default 0.735) the answer is "I don't know.".
  With an LLM (any OpenAI-compatible chat endpoint: --llm-base-url or OPENAI_BASE_URL, key in OPENAI_API_KEY,
  model --llm-model, default gpt-4o-mini): a short answer whose every sentence is checked like related-work prose
  (corpus-lens review): sentences not supported by the quotes they cite, citations of papers that are not in the
  evidence, and unquoted copies of corpus text are removed; --verify off skips the model's own verification call.
  Without one: an extract — the best evidence sentences grouped by paper, with the sentence before and after.
  Citations are [n], numbered over the conversation. --history FILE keeps the conversation (JSON; created when
  missing, rewritten after each question): follow-ups are rewritten to stand alone (by the LLM; without one, the
  previous question's terms are added), citation numbers stay unique across the conversation, and "where did
  you find that?" lists the previous answer's sources without searching.
  --json prints {question, standalone, rewrite: none|llm|terms, kind: answer|extract|unknown|sources, answered,
  text, sentences: [{text, original, citations, verdict, support, kept, reasons}], citations: [n…],
  sources: [{n, paperId, citationKey, title, authors, year, section, sentenceId, globalIndex, text, previous,
  next, page, lineStart, lineEnd, pageEnd}] (the sources this answer cites; for PDFs the page stored at ingest and
  the lines the sentence is printed on, from lineStart on page to lineEnd on pageEnd, counted per page in reading
  order over body text, headings, captions and footnotes; null otherwise or for a PDF indexed before schema v8),
  answerability, threshold, counts: {evidence, papers, unverifiedEvidence, removedSentences, removedCitations,
  llmCalls, ms, modelMs}, model, conversation: {turns, sources}, elements: [{type, label, caption, content,
  paperId, citationKey, title, year, section, page, bbox, match: direct|linked, similarity, source}]} (figures,
  tables and equations beside the cited sentences or matching the question; cards, not citations). Exit 0 for
  every answer ("I don't know" included), 1 for an error, 130 when cancelled.`;

function numberFlag(name: string, v: string | undefined, min: number, max: number, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new CliError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got '${v}')`, 2);
  }
  return n;
}

async function readHistory(file: string): Promise<Conversation> {
  const { newConversation, parseConversation, ConversationError } = await import('../../core/ask/index.js');
  if (!existsSync(file)) return newConversation();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --history ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!text.trim()) return newConversation();
  try {
    return parseConversation(text);
  } catch (err) {
    if (err instanceof ConversationError) throw new CliError(`--history ${file} is ${err.message}`);
    throw err;
  }
}

/** Written beside the file and renamed over it: an interrupted write never leaves half a conversation. */
async function writeHistory(file: string, c: Conversation): Promise<void> {
  const { serializeConversation } = await import('../../core/ask/index.js');
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, serializeConversation(c));
    await rename(tmp, file);
  } catch (err) {
    throw new CliError(`cannot write --history ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The --json shape (documented in USAGE and the README). */
export function askJson(turn: AskTurn, c: Conversation, threshold: number) {
  return {
    question: turn.question,
    standalone: turn.standalone,
    rewrite: turn.rewrite,
    kind: turn.kind,
    answered: turn.kind === 'answer' || turn.kind === 'extract',
    text: turn.text,
    sentences: turn.sentences,
    citations: turn.citations,
    // A conversation saved before line numbers has sources without them: null, so the JSON keeps one shape.
    sources: turn.citations.map((n) => c.sources[n - 1]).map((s) => ({ ...s, lineStart: s.lineStart ?? null, lineEnd: s.lineEnd ?? null, pageEnd: s.pageEnd ?? null })),
    answerability: turn.answerability,
    threshold,
    counts: turn.counts,
    model: turn.model,
    conversation: { turns: c.turns.length, sources: c.sources.length },
    elements: turn.elements ?? [],
  };
}

/** An element card as one line: 'Table 2 (table, p. 3) Median latency by corpus size. — Title [paper id]'. */
function elementLine(e: AskElement): string {
  const where = [e.type, e.page !== null ? `p. ${e.page}` : null, e.source !== null ? `beside [${e.source}]` : null].filter(Boolean).join(', ');
  const text = e.caption ?? e.content?.split('\n')[0] ?? '';
  return `${e.label ?? `Unnumbered ${e.type}`} (${where}) ${text} — ${e.title ?? e.paperId} [${e.paperId}]`;
}

export function createAskCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'answer a question from the corpus with checked sentence-level citations (without an LLM: an extract)',
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const { values, positionals } = parseOptions({
        args: negativeValues(args, ['json', 'quiet', 'help']),
        allowPositionals: true,
        options: {
          db: { type: 'string' },
          history: { type: 'string' },
          'llm-base-url': { type: 'string' },
          'llm-model': { type: 'string' },
          json: { type: 'boolean' },
          threshold: { type: 'string' },
          evidence: { type: 'string' },
          verify: { type: 'string' },
          embedder: { type: 'string' },
          model: { type: 'string' },
          prefixes: { type: 'string' },
          schema: { type: 'string' },
          timeout: { type: 'string' },
          quiet: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      const question = positionals.join(' ').trim();
      if (!question) throw new CliError('give the question: corpus-lens ask --db DB "QUESTION"', 2);
      const { ask, ANSWERABILITY_THRESHOLD, sourcesText } = await import('../../core/ask/index.js');
      const threshold = numberFlag('threshold', values.threshold, 0, 1, false) ?? ANSWERABILITY_THRESHOLD;
      const evidence = numberFlag('evidence', values.evidence, 1, 100, true);
      const timeoutMs = numberFlag('timeout', values.timeout, 1, 3_600_000, true);
      if (values.verify !== undefined && values.verify !== 'on' && values.verify !== 'off') throw new CliError(`--verify must be on or off (got '${values.verify}')`, 2);
      const conversation = values.history ? await readHistory(values.history) : (await import('../../core/ask/index.js')).newConversation();

      const baseURL = values['llm-base-url'] || env.OPENAI_BASE_URL || '';
      const { OpenAIChat, isAbortError } = await import('../../core/llm/index.js');
      const chat = baseURL ? new OpenAIChat({ baseURL, model: values['llm-model'] || 'gpt-4o-mini', apiKey: env.OPENAI_API_KEY || undefined, timeoutMs }) : null;

      const store = await openDb(values.db, values.schema, env);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      let turn: AskTurn;
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
        const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))({ embedder: values.embedder, model: values.model, prefixes: values.prefixes, corpus: meta });
        try {
          turn = await ask(conversation, question, { store, embedder, chat, threshold, evidence, verify: values.verify !== 'off', signal: controller.signal });
        } catch (e) {
          if (isAbortError(e)) throw new CliError('cancelled', 130);
          throw e;
        }
      } finally {
        process.off('SIGINT', onSigint);
        await store.close();
      }
      if (values.history) await writeHistory(values.history, conversation);

      if (values.json) out(JSON.stringify(askJson(turn, conversation, threshold), null, 2) + '\n');
      else {
        out(turn.text + '\n');
        if (turn.kind !== 'sources' && turn.citations.length) out(`\nSources:\n${sourcesText(conversation, turn.citations)}\n`);
        if (turn.elements?.length) out(`\nFigures, tables and equations:\n${turn.elements.map(elementLine).join('\n')}\n`);
      }
      if (!values.quiet) {
        const c = turn.counts;
        err(
          `corpus-lens: ${turn.kind === 'unknown' ? "I don't know" : turn.kind} (answerability ${turn.answerability.toFixed(2)}, threshold ${threshold}); ` +
            `${c.evidence} evidence sentences from ${c.papers} papers` +
            (chat ? `; ${c.removedSentences} sentences and ${c.removedCitations} citations removed by the check; ${c.llmCalls} LLM calls` : '; no LLM configured (--llm-base-url / OPENAI_BASE_URL): extract') +
            (turn.rewrite !== 'none' ? `; searched as: ${turn.standalone}` : '') +
            '\n',
        );
      }
      return 0;
    },
  };
}

export const askCommand = createAskCommand();
