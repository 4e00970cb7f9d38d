// From a candidate to a paper: the best open full text there is, in order of structure — arXiv e-print (the
// LaTeX source), arXiv HTML, an open-access PDF — else the metadata and abstract, else nothing. Every attempt is
// recorded, so the report can say why an entry ended where it did.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sentences } from '../text/index.js';
import { download } from '../net/download.js';
import { HttpError } from '../net/http.js';
import { readArxivHtmlText, readLatexProject, readPdfBytes, type ParsedPaper } from '../ingest/index.js';
import { buildPaper, PaperAssembler, sha256Hex } from '../ingest/paper.js';
import { fetchArxivEprint, fetchArxivHtml } from './arxiv.js';
import { describeSourceError } from './errors.js';
import { isOpenLicense, type Candidate, type SourceContext } from './types.js';

/** How an entry ended: indexed from LaTeX / HTML / PDF, metadata only (abstract), or not found. */
export type Outcome = 'latex' | 'html' | 'pdf' | 'metadata' | 'not-found';

export interface FullText {
  paper: ParsedPaper | null;
  outcome: Outcome;
  /** The URL the text came from (null for metadata only / not found). */
  from: string | null;
  /** Each attempt that did not give the text, with why ("arXiv e-print: HTTP 404"). */
  tried: string[];
  /** True when an attempt failed for a reason other than "not there" (network, timeout, unreadable file). */
  errored: boolean;
}

export const NO_COPY_KNOWN = 'no arXiv copy and no open-access PDF known';

export async function readFullText(ctx: SourceContext, c: Candidate): Promise<FullText> {
  const tried: string[] = [];
  let errored = false;
  const attempt = async (
    what: string,
    run: () => Promise<{ paper: ParsedPaper | null; from: string } | string>,
  ): Promise<{ paper: ParsedPaper; from: string } | null> => {
    try {
      const r = await run();
      if (typeof r === 'string') tried.push(`${what}: ${r}`);
      else if (!r.paper || !r.paper.sentences.length) tried.push(`${what}: no text could be read`);
      else return { paper: r.paper, from: r.from };
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      if (!(e instanceof HttpError && (e.status === 404 || e.status === 410))) errored = true;
      tried.push(`${what}: ${describeSourceError(e, ctx.config)}`);
    }
    return null;
  };
  const done = (got: { paper: ParsedPaper; from: string }, outcome: Outcome): FullText => ({
    paper: { ...withMeta(got.paper, c), source: got.from, license: c.license },
    outcome,
    from: got.from,
    tried,
    errored,
  });

  if (ctx.config.openLicenseOnly && !isOpenLicense(c.license)) {
    tried.push(`full text not stored: licence ${c.license ?? 'unknown'} is not open (corpusLens.sources.openLicenseOnly)`);
  } else {
    if (c.arxivId) {
      const id = c.arxivId;
      const eprintUrl = `${ctx.config.arxivUrl}/e-print/${id}`;
      let viaPdf = false;
      const latex = await attempt('arXiv e-print', async () => {
        const e = await fetchArxivEprint(ctx, id);
        if (e.kind === 'none') return e.reason;
        if (e.kind === 'pdf') {
          viaPdf = true;
          const data = new Uint8Array(await readFile(e.path));
          return { paper: firstPaper(await readPdfBytes(data, e.path, { signal: ctx.signal })), from: eprintUrl };
        }
        return { paper: firstPaper(readLatexProject(e.main, { signal: ctx.signal })), from: eprintUrl };
      });
      if (latex) return done(latex, viaPdf ? 'pdf' : 'latex');
      const html = await attempt('arXiv HTML', async () => {
        const text = await fetchArxivHtml(ctx, id);
        if (text === null) return 'arXiv has no HTML version';
        const from = `${ctx.config.arxivUrl}/html/${id}`;
        return { paper: firstPaper(readArxivHtmlText(text, from, { signal: ctx.signal })), from };
      });
      if (html) return done(html, 'html');
    }
    if (c.pdfUrl) {
      const url = c.pdfUrl;
      const pdf = await attempt('open-access PDF', async () => {
        const file = join(ctx.config.cacheDir, 'pdf', `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.pdf`);
        await download(ctx.http, url, file, { signal: ctx.signal, maxBytes: ctx.config.maxPdfBytes });
        const data = new Uint8Array(await readFile(file));
        if (Buffer.from(data.subarray(0, 5)).toString('latin1') !== '%PDF-') return 'the download is not a PDF (a landing page?)';
        return { paper: firstPaper(await readPdfBytes(data, file, { signal: ctx.signal })), from: url };
      });
      if (pdf) return done(pdf, 'pdf');
    }
  }
  if (!c.arxivId && !c.pdfUrl) tried.push(NO_COPY_KNOWN);
  const meta = abstractPaper(c);
  if (meta)
    return { paper: { ...meta, source: `metadata:${c.origin}`, license: c.license }, outcome: 'metadata', from: null, tried, errored };
  return { paper: null, outcome: 'not-found', from: null, tried, errored };
}

function firstPaper(r: { papers: ParsedPaper[]; errors: { reason: string }[] }): ParsedPaper | null {
  if (!r.papers.length && r.errors.length) throw new Error(r.errors[0].reason);
  return r.papers[0] ?? null;
}

/** The paper with the candidate's metadata (the .bib's key and entry, the source's title, ids, abstract) over what the reader found. */
export function withMeta(paper: ParsedPaper, c: Candidate): ParsedPaper {
  return buildPaper(
    {
      title: c.title ?? paper.title,
      authors: c.authors.length ? c.authors : paper.authors,
      year: c.year ?? paper.year,
      venue: c.venue ?? paper.venue,
      doi: c.doi ?? paper.doi,
      arxivId: c.arxivId ?? paper.arxivId,
      url: c.url ?? paper.url,
      abstract: c.abstract ?? paper.abstract,
      bibtex: c.bibtex,
      citationKey: c.citationKey,
    },
    { sections: paper.sections, sentences: paper.sentences },
    { path: paper.sourcePath, contentHash: paper.contentHash },
  );
}

/** A paper of its abstract alone (one section "Abstract"), or null without an abstract. */
export function abstractPaper(c: Candidate): ParsedPaper | null {
  if (!c.abstract) return null;
  const asm = new PaperAssembler();
  asm.section('Abstract', null, 1);
  for (const s of sentences(c.abstract, 'text')) asm.sentence(s.clean);
  const assembled = asm.finish();
  if (!assembled.sentences.length) return null;
  const { pdfUrl: _p, license: _l, origin: _o, ...meta } = c;
  return buildPaper(meta, assembled, { path: null, contentHash: sha256Hex(`abstract\u0000${c.title ?? ''}\u0000${c.abstract}`) });
}
