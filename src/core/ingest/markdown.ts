// Markdown: headings as sections, YAML front matter as metadata.
import { parse as parseYaml } from 'yaml';
import { TextModel } from '../text/index.js';
import { assembleTextModel, numberFromTitle } from './outline.js';
import { buildPaper, PaperAssembler, sha256Hex } from './paper.js';
import type { ReadOptions, ReadResult } from './types.js';
import type { PaperMeta } from '../paper/fields.js';
import { parseYear } from '../paper/ids.js';

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

function str(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() || null;
  if (typeof v === 'number') return String(v);
  return null;
}

function names(v: unknown): string[] {
  if (v == null) return [];
  if (typeof v === 'string')
    return v
      .split(/\s+and\s+|;/)
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v)) return v.flatMap(names);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const n = str(o.name) ?? str(o.literal) ?? ([str(o.given), str(o.family)].filter(Boolean).join(' ') || null);
    return n ? [n] : [];
  }
  return [];
}

/** Metadata from YAML front matter (Pandoc / Quarto / Jekyll keys). */
export function frontMatterMeta(text: string): { meta: PaperMeta; error: string | null } {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { meta: {}, error: null };
  let data: unknown;
  try {
    data = parseYaml(m[1]);
  } catch (e) {
    return { meta: {}, error: `front matter is not valid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { meta: {}, error: null };
  const d = data as Record<string, unknown>;
  const authors = names(d.author ?? d.authors);
  return {
    meta: {
      title: str(d.title),
      authors,
      year: parseYear(d.year) ?? parseYear(d.date) ?? parseYear(str(d.date)),
      doi: str(d.doi),
      venue: str(d.venue) ?? str(d.journal) ?? str(d['container-title']) ?? str(d.booktitle) ?? str(d.conference),
      abstract: str(d.abstract),
      arxivId: str(d.arxiv) ?? str(d.eprint),
      url: str(d.url),
    },
    error: null,
  };
}

export function readMarkdownText(text: string, path: string | null, options: ReadOptions = {}, contentHash = sha256Hex(text)): ReadResult {
  const errors: ReadResult['errors'] = [];
  const { meta, error } = frontMatterMeta(text);
  if (error) errors.push({ file: path ?? '<markdown>', reason: error });
  const model = new TextModel(text, 'markdown');
  const asm = new PaperAssembler();
  if (meta.abstract && !model.headings().some((h) => /^abstract$/i.test(h.title))) {
    asm.section('Abstract', null, 1);
    for (const s of new TextModel(meta.abstract, 'text').sentences()) asm.sentence(s.clean);
  }
  assembleTextModel(model, asm, numberFromTitle);
  meta.title ??= model.title();
  const assembled = asm.finish();
  return { papers: [buildPaper(meta, assembled, { path, contentHash }, options.bib, asm.abstractParts)], errors };
}
