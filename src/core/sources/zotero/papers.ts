// Zotero items → the ingest paper model. Text comes from the item's PDF (the project's PDF reader), else from
// Zotero's own extracted text (.zotero-ft-cache) where the PDF is missing or has no text layer, else the item
// is indexed by its abstract alone. Zotero's metadata wins over what the PDF reader guessed; the reader only
// fills what Zotero lacks. Each item is one IngestUnit of the shared pipeline (src/core/ingest/pipeline.ts).
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { formatBibtexEntry } from '../../bib/format.js';
import type { IngestUnit } from '../../ingest/pipeline.js';
import { buildPaper, isReferenceSection, PaperAssembler, sha256Hex } from '../../ingest/paper.js';
import { pdfPageCount, readPdfBytes } from '../../ingest/pdf.js';
import { sourceSentenceEstimate } from '../../store/ops/capacity.js';
import type { ParsedPaper, ReadResult } from '../../ingest/types.js';
import { sentences } from '../../text/index.js';
import { splitAtCaptions } from '../../text/captions.js';
import { attachmentFile, attachmentRefusal, fullTextCacheFile, isPdfAttachment } from './attachments.js';
import type { ZoteroItem } from './library.js';
import type { PaperMeta } from '../../paper/fields.js';

export interface ZoteroContext {
  dataDir: string;
  /** For `attachments:` paths (prefs.js); null when the user set none. */
  baseAttachmentPath: string | null;
}

/**
 * Where an item's text is, with each file's hash, found once per run (the hash decides, the reader reads). Only
 * paths and hashes are kept: a library's units hold no file contents between identity() and read().
 */
interface ItemSources {
  pdfs: Array<{ file: string; hash: string }>;
  caches: Array<{ file: string; hash: string }>;
  /** Attachments not read, with why (a path leaving its folder, a malformed key). */
  refused: string[];
}

/** The item's stable source path: Zotero's own link to it (zotero://select/items/<library>_<key>). */
export function zoteroItemUri(item: Pick<ZoteroItem, 'libraryID' | 'key'>): string {
  return `zotero://select/items/${item.libraryID}_${item.key}`;
}

/** Zotero's metadata as the reader model's PaperMeta, with its BibTeX entry under the item's citation key. */
export function zoteroMeta(item: ZoteroItem): PaperMeta & { citationKey: string } {
  const meta = {
    title: item.title,
    authors: item.authors,
    year: item.year,
    venue: item.venue,
    doi: item.doi,
    arxivId: item.arxivId,
    url: item.url,
    abstract: item.abstract,
  };
  return { ...meta, citationKey: item.citationKey, bibtex: formatBibtexEntry(meta, item.citationKey) };
}

async function itemSources(item: ZoteroItem, ctx: ZoteroContext): Promise<ItemSources> {
  const out: ItemSources = { pdfs: [], caches: [], refused: [] };
  for (const att of item.attachments.filter(isPdfAttachment)) {
    const refusal = attachmentRefusal(att, ctx.baseAttachmentPath);
    if (refusal) out.refused.push(refusal);
    const file = attachmentFile(att, ctx.dataDir, ctx.baseAttachmentPath);
    const bytes = file ? await readFile(file).catch(() => null) : null;
    if (file && bytes) out.pdfs.push({ file, hash: sha256Hex(bytes) });
    const cache = fullTextCacheFile(att, ctx.dataDir);
    const text = cache ? await readFile(cache, 'utf8').catch(() => null) : null;
    if (cache && text?.trim()) out.caches.push({ file: cache, hash: sha256Hex(text) });
  }
  return out;
}

/** Changes when the item's metadata (Zotero's dateModified, the key) or any of its text sources change. */
function contentHash(item: ZoteroItem, sources: ItemSources): string {
  return sha256Hex(
    JSON.stringify({
      key: item.key,
      modified: item.dateModified,
      citationKey: item.citationKey,
      fields: item.fields,
      authors: item.authors,
      pdfs: sources.pdfs.map((p) => p.hash),
      caches: sources.caches.map((c) => c.hash),
    }),
  );
}

/** One pipeline unit per item: skipped unread when the corpus holds it with the same hash. */
export function zoteroUnit(item: ZoteroItem, ctx: ZoteroContext): IngestUnit {
  let found: Promise<{ sources: ItemSources; hash: string }> | undefined;
  const load = () => (found ??= itemSources(item, ctx).then((sources) => ({ sources, hash: contentHash(item, sources) })));
  return {
    label: `${item.citationKey} (Zotero item ${item.key}${item.title ? `: ${item.title.slice(0, 60)}` : ''})`,
    identity: async () => ({ sourcePath: zoteroItemUri(item), contentHash: (await load()).hash }),
    estimate: async () => estimateItem(item, (await load()).sources),
    read: async (signal) => {
      const { sources, hash } = await load();
      return readZoteroItem(item, sources, hash, signal);
    },
  };
}

/**
 * The sentences the item will add, from what the import will read: Zotero's full text split as it is indexed, else the
 * PDF's page count, else the abstract's sentences, else none. A PDF without a text layer and without Zotero's text
 * is counted by its pages although only its abstract will be read: the estimate errs towards the warning.
 */
async function estimateItem(item: ZoteroItem, sources: ItemSources): Promise<number> {
  let fullTextSentences = 0;
  for (const c of sources.caches) {
    const text = await readFile(c.file, 'utf8').catch(() => null);
    if (text) fullTextSentences = Math.max(fullTextSentences, assembleText(text).sentences.length);
  }
  let pdfPages = 0;
  for (const pdf of fullTextSentences ? [] : sources.pdfs) {
    const bytes = await readFile(pdf.file).catch(() => null);
    pdfPages = bytes ? await pdfPageCount(new Uint8Array(bytes)).catch(() => 0) : 0;
    if (pdfPages) break;
  }
  return sourceSentenceEstimate({ fullTextSentences, pdfPages, abstractSentences: abstractOnly(item.abstract).sentences.length });
}

/**
 * A PDF's text is a stub when Zotero's own full-text cache of the item holds far more: fewer than this many sentences
 * (a scan with a one-line text layer, a cover page) or under a fifth of the cache's text.
 */
export const STUB_SENTENCES = 20;
const STUB_SHARE = 0.2;

async function readZoteroItem(item: ZoteroItem, sources: ItemSources, hash: string, signal?: AbortSignal): Promise<ReadResult> {
  const refused = sources.refused.map((reason) => ({ file: zoteroItemUri(item), reason: `${item.citationKey}: ${reason}; not read` }));
  const result = await readZoteroText(item, sources, hash, signal);
  return refused.length ? { ...result, warnings: [...refused, ...(result.warnings ?? [])] } : result;
}

async function readZoteroText(item: ZoteroItem, sources: ItemSources, hash: string, signal?: AbortSignal): Promise<ReadResult> {
  const meta = zoteroMeta(item);
  const source = { path: zoteroItemUri(item), contentHash: hash };
  // Zotero's cache with the most text, read once: the fallback for a PDF without text, and the yardstick of a stub.
  let cache: { file: string; assembled: ReturnType<typeof assembleText>; chars: number } | null = null;
  for (const c of sources.caches) {
    const assembled = assembleText((await readFile(c.file, 'utf8').catch(() => null)) ?? '');
    const chars = textLength(assembled.sentences);
    if (assembled.sentences.length && (!cache || chars > cache.chars)) cache = { file: c.file, assembled, chars };
  }
  for (const pdf of sources.pdfs) {
    const bytes = await readFile(pdf.file).catch(() => null);
    if (!bytes) continue;
    const read = await readPdfBytes(new Uint8Array(bytes), pdf.file, { signal }).catch((e) => {
      if (signal?.aborted) throw e;
      return null;
    });
    const got = read?.papers.find((p) => p.sentences.length);
    if (!got) continue;
    const chars = textLength(got.sentences);
    const stub =
      cache &&
      cache.assembled.sentences.length > got.sentences.length &&
      (got.sentences.length < STUB_SENTENCES || chars < STUB_SHARE * cache.chars);
    if (!stub) return { papers: [fromPdf(meta, got, source)], errors: [] };
    // A stub attachment: Zotero's text is the better text. Said in the run's report, and listed in the log.
    const reason =
      `${item.citationKey}: its PDF ${basename(pdf.file)} yields ${got.sentences.length} sentence${got.sentences.length === 1 ? '' : 's'} ` +
      `(${chars} characters) where Zotero's full-text cache has ${cache!.assembled.sentences.length} (${cache!.chars}): indexed Zotero's full text`;
    return { papers: [buildPaper(meta, cache!.assembled, source)], errors: [], warnings: [{ file: zoteroItemUri(item), reason }] };
  }
  if (cache) return { papers: [buildPaper(meta, cache.assembled, source)], errors: [] };
  const abstract = abstractOnly(item.abstract);
  if (abstract.sentences.length) return { papers: [buildPaper(meta, abstract, source)], errors: [] };
  // Nothing is lost (there is no text to lose) and nothing failed: a warning, reported on every run.
  return {
    papers: [],
    errors: [],
    warnings: [{ file: zoteroItemUri(item), reason: `${item.citationKey}: no PDF, no Zotero full text and no abstract to index` }],
  };
}

function textLength(sentences: readonly { text: string }[]): number {
  return sentences.reduce((n, s) => n + s.text.length, 0);
}

/** The PDF's sections and sentences under Zotero's metadata; what Zotero lacks is taken from the PDF. */
function fromPdf(meta: PaperMeta & { citationKey: string }, pdf: ParsedPaper, source: { path: string; contentHash: string }): ParsedPaper {
  const merged: PaperMeta = {
    ...meta,
    authors: meta.authors?.length ? meta.authors : pdf.authors,
    year: meta.year ?? pdf.year,
    venue: meta.venue ?? pdf.venue,
    doi: meta.doi ?? pdf.doi,
    arxivId: meta.arxivId ?? pdf.arxivId,
    abstract: meta.abstract ?? pdf.abstract,
  };
  merged.bibtex = formatBibtexEntry(merged, meta.citationKey);
  return buildPaper(merged, { sections: pdf.sections, sentences: pdf.sentences }, source);
}

/**
 * Zotero's extracted text (pdftotext-like: one line per printed line, blank lines between paragraphs): lines are
 * joined, hyphenation at line ends undone, and everything after a References heading dropped.
 */
export function assembleText(text: string): ReturnType<PaperAssembler['finish']> {
  const asm = new PaperAssembler();
  asm.section('', null, 1);
  for (const para of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const lines = para
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (!lines.length) continue;
    if (lines.length === 1 && isReferenceSection(lines[0])) {
      asm.section(lines[0], null, 1);
      continue;
    }
    // A caption line ("Table 1: …") is joined apart from the body lines around it, so it never runs into them.
    const block = lines.join('\n');
    for (const [a, b] of splitAtCaptions(block, 0, block.length)) {
      const joined = block
        .slice(a, b)
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .reduce((acc, l) => (/[a-z]-$/.test(acc) && /^[a-z]/.test(l) ? acc.slice(0, -1) + l : acc ? `${acc} ${l}` : l), '');
      for (const s of sentences(joined, 'text')) asm.sentence(s.clean);
    }
  }
  return asm.finish();
}

function abstractOnly(abstract: string | null): ReturnType<PaperAssembler['finish']> {
  const asm = new PaperAssembler();
  if (abstract) {
    asm.section('Abstract', null, 1);
    for (const s of sentences(abstract, 'text')) asm.sentence(s.clean);
  }
  return asm.finish();
}
