// Every `corpus-lens` command as the user meets it, declared once: its summary, its synopsis, its options (the
// shared groups of cli/options.ts plus its own) and what its help says beyond them. The command modules parse
// by these; `corpus-lens --help`, `corpus-lens NAME --help` and the README's CLI table are printed from them.
import {
  choice,
  choiceValue,
  corpusOptions,
  custom,
  defineCommand,
  dimensionsOptions,
  dimensionsValue,
  embedderOptions,
  flag,
  integer,
  llmOptions,
  number,
  readSchemaOptions,
  text,
  texts,
  type CommandSpec,
} from './options.js';
import { CliError } from './command.js';
import type { CitationCommand } from '../core/bib/cite.js';
import { DEFAULT_DIMENSIONS } from '../core/store/sql/schema.js';
import { INDEX_PRECISIONS } from '../core/store/sql/vector.js';

const CITES: readonly CitationCommand[] = ['cite', 'citep', 'citet', 'autocite', 'parencite'];

/** PostgreSQL's integer range: a larger --offset or --k is a mistake, not a request. */
const INT_MAX = 2_147_483_647;

const jsonFlag = (what: string) => ({ json: flag(`print ${what} as JSON`) });
const precision = (help: string, defaultText: string) => ({
  precision: choice(INDEX_PRECISIONS, help, { defaultText }),
});

/** `--since 2020`: a four-digit year. */
function yearValue(raw: string, flagName: string): number {
  const n = Number(raw);
  if (!/^\d{4}$/.test(raw.trim()) || n < 1900 || n > 2999) throw new CliError(`${flagName} must be a year such as 2020 (got '${raw}')`, 2);
  return n;
}

/** `--max-pdf-mb 200`: a positive number of megabytes, as bytes. */
function megabytesValue(raw: string, flagName: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new CliError(`${flagName} must be a positive number of megabytes (got '${raw}')`, 2);
  return Math.round(n * 1024 * 1024);
}

/** `--verify on|off`: true unless off. */
const onOff = (help: string) => choice(['on', 'off'] as const, help, { default: 'on' });

export const segmentSpec = defineCommand({
  name: 'segment',
  summary: 'print the sentences of a LaTeX/Markdown/text file, or the sentence at --at offsets (JSON)',
  synopsis: ['[--format latex|markdown|text] [--at N[,N…]] [FILE]'],
  about:
    'Reads FILE (or stdin) and prints a JSON array of its sentences {start, end, text, clean, section}; with --at, the sentence at each offset (an object, or null where there is none; an array for several offsets).',
  options: {
    format: text('latex|markdown|text', 'the document format', { defaultText: 'from the FILE extension (.tex, .md, .qmd, .rmd)' }),
    at: text('N[,N…]', 'UTF-16 offsets: print the sentence at each'),
  },
});

export const ingestSpec = defineCommand({
  name: 'ingest',
  summary: 'add PDF, LaTeX, arXiv HTML, Markdown and BibTeX papers (files or folders), or a Zotero library, to a corpus',
  synopsis: ['--db DB [options] PATH…', '--db DB --zotero DIR [--collection NAME] [options]'],
  about: [
    "PATH: PDF, LaTeX (main file with its \\input/\\include parts), arXiv HTML, Markdown and .bib files, or folders of them. --zotero DIR: the works of a Zotero library (its data directory, the folder holding zotero.sqlite; Zotero may be running), text from each item's PDF or Zotero's full-text cache, else its abstract, under its citation key.",
    '--embedder openai: a new corpus records the model and the vector size it answers (one probe), and a later run with another model or size is refused before anything is written.',
    'Unchanged files are skipped, and so are files found to be worse copies of a stored paper (a PDF beside its LaTeX source) until they change; a run stopped at any point can be run again. Per-file failures are listed at the end. --json prints {papers, sentences, elements, skipped, merged (when a duplicate was merged), retitled (when a stored paper whose title was made up took a real one), failed:[{file, reason}], warnings:[{file, reason}]}; --progress writes one JSON line per file to stderr {filesDone, filesTotal, papers, sentences, sentencesPerSecond, etaSeconds, file}, and inside a file of many papers (a large .bib), written batch by batch, one per batch with filePapers: {done, total}. Exit 0 when the run completes, failures included.',
    "--llm-base-url: a PDF with no title on its page or in its metadata, no .bib entry and no Zotero item gets title, authors and year proposed by the chat model from its first page, each checked against the page, stored as proposed (`corpus-lens stats` lists them). The model's answers are kept on disk like ask's (--no-llm-cache: ask again); --llm-fallback-model M answers when the model times out or fails.",
    'An embedded corpus (a folder) that this run would take past 80 % of its measured size limit gets a warning line on stderr (not with --progress); CORPUS_LENS_EMBEDDED_LIMIT=SENTENCES sets another limit. A PostgreSQL server whose /dev/shm cannot hold a parallel index build gets its indexes built serially, with a warning (file: the --db).',
  ].join('\n'),
  options: {
    ...corpusOptions,
    glob: text('PATTERN', 'only the files under the PATHs that match this glob'),
    reindex: flag(
      'read the PATHs again even when unchanged, replacing the papers stored from them: papers of one work given together merge into one, and a .bib given with them lends its metadata (the fixes `corpus-lens stats` prints)',
    ),
    zotero: text('DIR', 'add the works of this Zotero library (its data directory)'),
    collection: text('NAME', 'with --zotero: only this collection (and its subcollections)'),
    ...embedderOptions,
    ...dimensionsOptions,
    ...precision(
      "how a NEW corpus's HNSW indexes hold the vectors (the vectors stay float32): half takes about half the index memory, but an embedded corpus builds ~5× slower with it; an existing corpus keeps its own (a different one is refused)",
      'float32 embedded, half on PostgreSQL and above 2,000 dimensions',
    ),
    ...jsonFlag('the summary'),
    'llm-base-url': text(
      'URL',
      'a chat endpoint that proposes title, authors and year for a PDF without any (marked as proposed; key in OPENAI_API_KEY)',
      {
        defaultText: 'none: offline',
      },
    ),
    'llm-model': llmOptions['llm-model'],
    'llm-fallback-model': llmOptions['llm-fallback-model'],
    'no-llm-cache': llmOptions['no-llm-cache'],
    progress: flag('write one JSON line of progress per file to stderr'),
  },
});

export const importSpec = defineCommand({
  name: 'import',
  summary: 'import CorpusStudio-style Document/Source JSONL rows into a corpus (embeds rows without embeddings)',
  synopsis: ['--db DB --documents Document.jsonl [--sources Source.jsonl] [options]'],
  about:
    'Rows without an embedding are embedded; rows already in the corpus are skipped. Prints a JSON summary {papers, sentences, skipped, embedded, badLines, model}. Bad lines are reported with their line numbers (the good ones are imported; exit code 1).',
  options: {
    ...corpusOptions,
    documents: text('FILE', 'the Document rows (JSONL): one sentence a line'),
    sources: text('FILE', 'the Source rows (JSONL): one paper a line'),
    ...embedderOptions,
    ...dimensionsOptions,
    context: choice(
      ['section', 'none'] as const,
      'none: plain sentence vectors (a sentence finds its own wording at similarity ≈ 1); section: each vector is blended with the rest of its paper section (better paper-level recall for citation retrieval). Recorded in the corpus; later imports must use the same',
      { default: 'none' },
    ),
  },
});

export const querySpec = defineCommand({
  name: 'query',
  summary: 'find corpus sentences similar to TEXT, with the sentence before and after and the paper (JSON)',
  synopsis: ['--db DB [options] TEXT', '--db DB [options] --queries FILE.jsonl'],
  about:
    'Prints a JSON array of hits {similarity, sentence, previous, next, paper, score} (similarity: the cosine, null with --mode keyword; score: the ranking\'s score: cosine, BM25 or reciprocal-rank fusion); with --queries (one {"id","text"} a line) one JSON line {"id","hits"} per query.',
  options: {
    ...corpusOptions,
    k: integer('N', 'how many hits', { min: 1, max: 10_000, default: 25 }),
    offset: integer('N', 'return the sentence N places after (before, if negative) each hit', { min: -INT_MAX, max: INT_MAX, default: 0 }),
    threshold: number('T', 'leave out hits whose similarity is below T', { min: -1, max: 1 }),
    mode: choice(['vector', 'keyword', 'hybrid'] as const, 'the ranking: vector similarity, keyword (BM25) or both fused', {
      defaultText: 'vector',
    }),
    group: choice(
      ['sentences', 'papers'] as const,
      "papers: one hit per paper (k papers) in the paper ranking's order (whole-paper BM25 plus the paper's vector similarity), each the paper's sentence most similar to TEXT; it has its own ranking, so --mode is not given with it",
      { default: 'sentences' },
    ),
    queries: text('FILE.jsonl', 'run each query of the file ({"id","text"} a line)'),
    'with-title': text(
      'TITLE',
      'search for "TITLE. TEXT": the title of the paper being written before each query, as CorpusStudio composes it',
    ),
    'year-min': integer('Y', 'only papers published in or after Y', { min: 0, max: INT_MAX }),
    'year-max': integer('Y', 'only papers published in or before Y', { min: 0, max: INT_MAX }),
    paper: texts('ID', 'only this paper (repeat for several)'),
    venue: text('TEXT', 'only papers whose venue contains TEXT (case-insensitive)'),
    section: text('TEXT', 'only sentences whose section title contains TEXT (case-insensitive), e.g. "related work"'),
    'rrf-k': integer('N', "reciprocal-rank fusion's k (--mode hybrid)", { min: 1, max: INT_MAX, defaultText: '60' }),
    ...readSchemaOptions,
    ...embedderOptions,
  },
});

export const reviewSpec = defineCommand({
  name: 'review',
  summary: 'generate a cited related-work section (without an LLM: an evidence outline)',
  synopsis: ['--db DB (--topic TEXT | --paper FILE.tex|.md) [options]'],
  about: [
    "Writes a related-work section from the corpus: every claim cites a corpus paper, every citation is backed by a quote verified against the paper's stored text. Without a chat endpoint: an evidence outline (clusters of retrieved sentences with citation keys, as comments) to write from.",
    'The section goes to --out or stdout. BibTeX of the cited papers: appended to --bib FILE (entries already there, by DOI or title, are reused, not repeated); without --bib it follows the section after a marker line.',
    "Every generated sentence is checked against the verified quotes of the papers it cites (offline; with an LLM also one verification call per section): unsupported or uncited claims, citations that do not resolve to a paper among the section's quotes, and copies of corpus text that are not quotations are removed. Each sentence's backing quotes follow its paragraph as LaTeX comments / Markdown footnotes.",
    '--json prints {text, bibtex, counts, sentences (per-sentence report), trace (steps, durations, tokens), check, filters} instead. Progress goes to stderr.',
    'Years and venues the topic states about its papers ("papers since 2020", "work published before 2015", "at ACL"; a venue as the corpus names it) restrict the search, and their words are not searched: read by the model with an LLM, else by a rule set (docs/guide.md). --json filters: {yearMin, yearMax, venues, phrases} or null; the decompose step of the trace names them.',
    "The model's answers are kept on disk (CORPUS_LENS_CACHE_DIR/llm, else ~/.cache/corpus-lens/llm): a re-run asks only the prompts it has not asked before; cached answers count no tokens (trace: cachedCalls). --llm-fallback-model M answers when the model times out or fails; the trace names it (fallback: {model, calls}).",
  ].join('\n'),
  options: {
    ...corpusOptions,
    topic: text('TEXT', 'what the section is about'),
    paper: text('FILE', 'a .tex or .md paper: its title and abstract give the topic'),
    format: choice(['latex', 'markdown'] as const, 'the output format', { defaultText: "the --paper's, else latex" }),
    out: text('FILE', 'write the section to FILE'),
    bib: text('FILE', 'append the BibTeX of the cited papers to FILE'),
    ...llmOptions,
    ...jsonFlag('the report'),
    cite: custom(
      CITES.join('|'),
      'the LaTeX citation command (a leading backslash is fine)',
      (raw, f) => choiceValue(f, raw.replace(/^\\/, ''), CITES),
      { defaultText: 'cite' },
    ),
    tables: flag('add a comparison table to list sections: one row per cited paper whose own quotes support what the list says of it'),
    papers: integer('N', 'how many papers to write from', { min: 1, defaultText: '50' }),
    candidates: integer('N', 'how many sentences to retrieve', { min: 1, defaultText: '256' }),
    rerank: choice(['llm', 'mmr'] as const, 'how the candidates are reranked (an HTTP reranker: --rerank-url)', {
      defaultText: 'llm with a chat model',
    }),
    'rerank-url': text('URL', 'an HTTP reranker (key in RERANK_API_KEY); needs --rerank-model'),
    'rerank-model': text('M', "the HTTP reranker's model"),
    ...embedderOptions,
    ...readSchemaOptions,
    timeout: integer('MS', 'the chat timeout in milliseconds', { min: 1 }),
    quiet: flag('no progress or summary on stderr'),
    unsupported: choice(['remove', 'flag'] as const, 'what happens to an unsupported sentence: removed, or kept visibly flagged', {
      default: 'remove',
    }),
    provenance: onOff("write each sentence's backing quotes after its paragraph"),
    verify: onOff("the model's own verification call per section"),
  },
});

export const fetchSpec = defineCommand({
  name: 'fetch',
  summary: 'build a corpus from arXiv, Semantic Scholar, OpenAlex, a .bib or DOIs / arXiv ids',
  synopsis: ['--db DB (--arxiv QUERY | --ids ID… | --bib FILE) [options]'],
  about: [
    "Builds a corpus from the web. Each paper's open full text is fetched: the arXiv e-print (LaTeX source), else arXiv HTML, else an open-access PDF (OpenAlex / Semantic Scholar), else the abstract alone; the report says which, entry by entry. The candidates are listed first; without --yes the command asks (no terminal: pass --yes).",
    'Polite by design: arXiv is asked once per 3 s on one connection, 429/5xx are retried honouring Retry-After, downloads resume. Contact (User-Agent and OpenAlex mailto): --contact or CORPUS_LENS_CONTACT. Keys: SEMANTIC_SCHOLAR_API_KEY, OPENALEX_API_KEY. Base URLs (mirrors): the flags or CORPUS_LENS_ARXIV_URL, CORPUS_LENS_ARXIV_API_URL, CORPUS_LENS_S2_URL, CORPUS_LENS_OPENALEX_URL. Progress ("12/40 papers · 3 failed") goes to stderr.',
    '--json prints {papers, sentences, skipped, failed, outcomes, entries:[{key, title, doi, arxivId, outcome: latex|html|pdf|metadata|not-found|in-corpus, from, license, paperId, failed, notes}]}.',
  ].join('\n'),
  options: {
    ...corpusOptions,
    arxiv: text('QUERY', 'search for papers (arXiv unless --source says otherwise)'),
    query: text('QUERY', 'the same as --arxiv'),
    ids: texts('ID', 'DOIs and arXiv ids (the rest of the line too)'),
    bib: text('FILE', 'every entry of a .bib, each stored under its own citation key'),
    source: choice(['arxiv', 's2', 'openalex'] as const, 'where --arxiv searches: arXiv, Semantic Scholar or OpenAlex', {
      default: 'arxiv',
    }),
    max: integer('N', 'how many candidates a search lists', { min: 1, max: 1000, default: 20 }),
    since: custom('YEAR', 'only papers published from YEAR', yearValue),
    until: custom('YEAR', 'only papers published up to YEAR', yearValue),
    yes: flag('fetch without asking', { short: 'y' }),
    ...jsonFlag('the report'),
    'open-license-only': flag('only papers under an open license'),
    'no-s2': flag('do not ask Semantic Scholar for open-access PDFs'),
    contact: text('EMAIL', 'your address, for the User-Agent and OpenAlex', { defaultText: 'CORPUS_LENS_CONTACT' }),
    cache: text('DIR', 'keep downloads here', { defaultText: 'CORPUS_LENS_CACHE' }),
    'arxiv-url': text('URL', 'an arXiv mirror'),
    'arxiv-api-url': text('URL', 'an arXiv API mirror'),
    's2-url': text('URL', 'a Semantic Scholar API mirror'),
    'openalex-url': text('URL', 'an OpenAlex API mirror'),
    ...embedderOptions,
    ...dimensionsOptions,
    'max-eprint-mb': custom(
      'N',
      'how much an e-print may take downloaded, unpacked and extracted; a larger one fails that entry (a gzip bomb stops at the budget)',
      megabytesValue,
      {
        defaultText: '100',
      },
    ),
    'max-pdf-mb': custom('N', 'how large a PDF may be', megabytesValue, { defaultText: '200' }),
  },
});

export const schemaSpec = defineCommand({
  name: 'schema',
  summary: 'print the corpus SQL schema and functions (for a PostgreSQL/Supabase migration)',
  synopsis: ['--print [options]'],
  about:
    "Prints the Corpus Lens SQL (tables, indexes, match/keyword/hybrid functions); run it once as a Supabase/PostgreSQL migration. It records --dimensions in corpus_meta (the first ingest or copy records the model), so a writer role's first fill needs no DDL.",
  options: {
    print: flag('print the SQL'),
    dimensions: custom('D', "the embeddings' vector length", dimensionsValue, {
      defaultText: String(DEFAULT_DIMENSIONS),
      accepts: '1..16000',
    }),
    ...precision(
      'how the HNSW indexes hold the vectors (the column stays float32): half is a halfvec index, 1.75× smaller at the same recall at 1M sentences, up to 4,000 dimensions. Fixed for the corpus once created',
      'float32 up to 2,000 dimensions, half above',
    ),
    roles: flag(
      'also the roles of a shared corpus: corpus_lens_reader (SELECT on the corpus tables, EXECUTE on the lookup functions, nothing else) and corpus_lens_writer (also ingest); needs CREATEROLE',
    ),
    supabase: flag('also row-level security: the anon and authenticated keys may only read and call the lookups'),
  },
});

export const copySpec = defineCommand({
  name: 'copy',
  summary: 'copy a corpus to another (e.g. embedded → PostgreSQL), resumable, verified by counts and checksum',
  synopsis: ['--from DB --to DB [options]'],
  about:
    "Copies a corpus (papers, sentences, vectors, figures and tables, and the record of files skipped as copies of a paper's work) from one corpus to another: e.g. an embedded corpus (a directory) to a lab's PostgreSQL (postgres://user@host/db; binary COPY). A paper already in the target with the same content hash is skipped, so an interrupted copy resumes where it stopped. Verified by counts and a checksum of the copied papers on both sides (exit 1 on a mismatch). Supabase: use the project's postgres:// connection string.",
  options: {
    from: text('DB', 'the corpus to copy'),
    to: text('DB', 'the corpus to copy into (created when missing)'),
    json: flag(
      'print the summary as JSON, with warnings: what the target did differently, e.g. index builds made serial by a small /dev/shm (also written to stderr)',
    ),
    progress: flag('write {papersDone, papersTotal} JSON lines to stderr'),
    batch: integer('SENTENCES', 'sentences per copied batch', { min: 1 }),
  },
});

export const askSpec = defineCommand({
  name: 'ask',
  summary: 'answer a question from the corpus with checked sentence-level citations (without an LLM: an extract)',
  synopsis: ['--db DB [options] QUESTION'],
  about: [
    "Answers a question from the corpus. The question is searched (hybrid: keyword + vector; on a corpus of more than 200 papers the best papers first, then their sentences); every evidence sentence is checked against its paper's stored text. When the evidence does not contain the question's terms (answerability below --threshold) the answer is \"I don't know.\".",
    'With an LLM: a short answer whose every sentence is checked like related-work prose (corpus-lens review): sentences not supported by the quotes they cite, citations of papers that are not in the evidence, and unquoted copies of corpus text are removed. Without one: an extract — the best evidence sentences grouped by paper, with the sentence before and after.',
    'Citations are [n], numbered over the conversation. --history FILE keeps the conversation (JSON; created when missing, rewritten after each question): follow-ups are rewritten to stand alone (by the LLM; without one, the previous question\'s terms are added), citation numbers stay unique across the conversation, and "where did you find that?" lists the previous answer\'s sources without searching.',
    '--json prints {question, standalone, rewrite: none|llm|terms, kind: answer|extract|unknown|sources, answered, text, sentences: [{text, original, citations, verdict, support, kept, reasons}], citations: [n…], sources: [{n, paperId, citationKey, title, authors, year, section, sentenceId, globalIndex, text, previous, next, page, lineStart, lineEnd, pageEnd, metadataProposedBy}] (the sources this answer cites; for PDFs the page stored at ingest and the lines the sentence is printed on, from lineStart on page to lineEnd on pageEnd, counted per page in reading order over body text, headings, captions and footnotes; null otherwise or for a PDF indexed before schema v8), answerability, threshold, counts: {evidence, papers, unverifiedEvidence, removedSentences, removedCitations, llmCalls, ms, modelMs}, model, conversation: {turns, sources}, elements: [{type, label, caption, content, paperId, citationKey, title, year, section, page, bbox, match: direct|linked, similarity, source, description, metadataProposedBy}], filters: {yearMin, yearMax, venues, phrases} | null} (metadataProposedBy, on a source or an element, only where the title of its paper was not read from it: the chat model that proposed title, authors and year at ingest, or what a LaTeX source without \\title was named from (its first heading | its file name); absent for a paper of real metadata. elements: figures, tables and equations beside the cited sentences or matching the question; cards, not citations. filters: the years and venues the question stated ("since 2020", "at ACL"), searched as filters, and the words that stated them, left out of the search).',
    'Exit 0 for every answer ("I don\'t know" included), 1 for an error, 130 when cancelled.',
  ].join('\n'),
  options: {
    ...corpusOptions,
    history: text('FILE', 'keep the conversation in FILE (JSON)'),
    ...llmOptions,
    ...jsonFlag('the answer and its report'),
    threshold: number('T', 'the answerability below which the answer is "I don\'t know."', { min: 0, max: 1, defaultText: '0.735' }),
    evidence: integer('N', 'how many evidence sentences', { min: 1, max: 100, defaultText: '8' }),
    'max-elements': integer('N', 'figure, table and equation cards at most (0: none)', { min: 0, max: 50, defaultText: '3' }),
    verify: onOff("the model's own verification call"),
    ...embedderOptions,
    ...readSchemaOptions,
    timeout: integer('MS', 'the chat timeout in milliseconds', { min: 1, max: 3_600_000 }),
    quiet: flag('no summary line on stderr'),
  },
});

export const elementsSpec = defineCommand({
  name: 'elements',
  summary: 'list or search the figures, tables and equations of the corpus; --enrich describes them with an LLM',
  synopsis: ['--db DB [options] [QUERY]', '--db DB --enrich [--force] [options]'],
  about: [
    'The figures, tables and equations ingest found (LaTeX, arXiv HTML, PDF). Without QUERY: every element, in the order written (--k: at most N). With QUERY: the best --k (default 10), by the vector of their caption + context fused with keyword search over label, caption, table cells and equation LaTeX.',
    "--json prints a JSON array of {match, similarity, score, element: {id, paperId, elementIndex, type, label, labelKey, caption, content, description, sectionTitle, sectionIndex, afterSentence, page, bbox}, paper}; page and bbox ([x0, y0, x1, y1] in points from the page's top-left) for PDFs, else null. Otherwise one line each.",
    "--enrich asks the chat model for a short searchable description of every element without one (--force: of every element) from its label, caption, content and the text of its page (a PDF element: every sentence on its page; otherwise its section around it), stores it (plain text, at most 400 characters) and recomputes the element's vector from label + caption + content + description + context, so searches find it by the description too. Ingest never calls a model: run this after it. --json prints {elements, enriched, skipped, failed: [{id, paperId, label, reason}], stopped}; stopped says why the model could not be used (unreachable, key refused, rate-limited): the elements described before stay described, the rest are left as they were, and the exit code is 1.",
  ].join('\n'),
  options: {
    ...corpusOptions,
    type: choice(['figure', 'diagram', 'table', 'equation'] as const, 'only elements of this type (figure: diagrams too)'),
    paper: texts('ID', 'only this paper (repeat for several)'),
    k: integer('N', 'at most N (with QUERY: the best N)', { min: 1, max: 100_000, defaultText: 'all; 10 with QUERY' }),
    ...jsonFlag('the elements (or the --enrich report)'),
    ...embedderOptions,
    enrich: flag('describe the elements with the chat model'),
    force: flag('with --enrich: describe every element again'),
    ...llmOptions,
  },
});

export const statsSpec = defineCommand({
  name: 'stats',
  summary: 'corpus health: papers and sentences by source, papers without title/authors/year, duplicates, stubs, anon keys',
  synopsis: ['--db DB [--json]'],
  about: [
    'Reads the corpus (changes nothing) and reports: papers and sentences by source (latex, pdf, html, markdown, bib, zotero, web, metadata, import); papers without a title, authors or a year; citation keys made without authors (anon…); stub papers (fewer than 20 sentences); likely duplicates (the same DOI, arXiv id or normalised title, or most of their text: a shingle fingerprint); and LaTeX projects whose \\input/\\include files are missing (checked on disk now: ingest does not store its warnings). Each finding has its fix: a command line (corpus-lens ingest --reindex …, corpus-lens fetch --ids …) or what to do.',
    "--json prints {papers, sentences, bySource: [{kind, papers, sentences}], missingTitle, missingAuthors, missingYear, anonymousKeys, stubs: [{paper, fix}], proposedMetadata: [{paper, model, fix}] (metadata a chat model proposed at ingest), duplicates: [{reason: doi|arxiv|title|fingerprint, key, papers, fix}], missingInputs: [{paper, file, missing, fix}], notes}; paper is {id, title, citationKey, sourcePath, kind, sentences, titleMadeUpFrom (only for a LaTeX source without \\title, in missingTitle: its first heading | its file name)}, fix is {action: merge|reindex|metadata|fetch|none, text, command}. Otherwise the report as Markdown. Supabase: needs the schema's paper_stats() function (run `corpus-lens schema --print` as a migration) and does not check duplicates by text.",
  ].join('\n'),
  options: {
    ...corpusOptions,
    ...jsonFlag('the report'),
  },
});

/** The commands in the order `corpus-lens --help` and the README list them. */
export const checkSpec = defineCommand({
  name: 'check',
  summary: "check every citation of a LaTeX/Markdown paper (or of JSONL claims) against the cited paper's own text",
  synopsis: ['--db DB [options] FILE…', '--db DB --claims FILE.jsonl --json [options]'],
  about: [
    "FILE: a LaTeX main file (its \\input/\\include files are read) or a Markdown paper; the .bib files it names (\\bibliography, \\addbibresource, front matter bibliography:) and --bib FILE are its bibliography. Each cited key is reported as missing-from-bib (in no .bib), not-in-corpus, or checked against the cited paper's stored sentences: supported, unsupported (no sentence supports the citing sentence: the closest ones are shown, and a corpus paper that does support it) or contradicted (only with an LLM).",
    '--json prints one line per cited key: {file, line, column, command, key, sentence, status: missing-from-bib|not-in-corpus|checked, paper, verdict, score, evidence: [{sentenceIndex, text, page}], alternatives: [{paper, key, inBib, score, evidence}]}. Otherwise one compiler-style line each (file:line:column: ok|warning|error|info: …).',
    '--claims: each input line {"id", "text", "cites": ["<paper id or key>", …]} gives one output line {"id", "cites": [{"paper", "key", "verdict", "score", "evidence": [{"sentenceIndex", "text", "page"}]}]}, evidence best first; --bib makes the cites .bib keys.',
    "With an LLM the verdict is the model's (supported, contradicted, or not enough information, reported unsupported) with the sentence it judged by first; its quality is the configured model's. Exit 0 when the check ran (whatever it found), 1 for an error, 2 for a usage error.",
  ].join('\n'),
  options: {
    ...corpusOptions,
    ...jsonFlag('one line per cited key (required with --claims)'),
    claims: text('FILE.jsonl', 'check these claims instead of a paper'),
    bib: texts('FILE', 'a .bib to read besides those the paper names (repeat for several)'),
    commands: custom('cite,citep,…', 'the LaTeX citation commands to read', citeCommandsValue, {
      defaultText: 'cite,citep,citet,autocite,parencite,textcite',
    }),
    threshold: number('T', 'the offline support threshold (a citation scoring below it is unsupported)', {
      min: 0,
      max: 1,
      defaultText: 'chosen on Citation-Integrity train',
    }),
    evidence: integer('N', 'evidence sentences per citation', { min: 1, max: 50, default: 3 }),
    ...llmOptions,
    timeout: integer('MS', 'the chat timeout in milliseconds', { min: 1, max: 3_600_000 }),
    ...embedderOptions,
    ...readSchemaOptions,
  },
});

/** `--commands cite,citep`: LaTeX command names (a leading backslash is dropped). */
function citeCommandsValue(raw: string, flagName: string): string[] {
  const names = raw
    .split(',')
    .map((c) => c.trim().replace(/^\\/, ''))
    .filter(Boolean);
  if (!names.length || names.some((c) => !/^[a-zA-Z]+$/.test(c))) {
    throw new CliError(`${flagName} must be LaTeX command names separated by commas, e.g. cite,citep (got '${raw}')`, 2);
  }
  return names;
}

export const commandSpecs: readonly CommandSpec[] = [
  segmentSpec,
  ingestSpec,
  importSpec,
  fetchSpec,
  querySpec,
  reviewSpec,
  askSpec,
  elementsSpec,
  checkSpec,
  statsSpec,
  schemaSpec,
  copySpec,
];
