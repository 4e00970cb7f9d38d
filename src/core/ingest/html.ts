// arXiv / ar5iv HTML (LaTeXML output): title, authors, abstract, sections and paragraphs from the markup; math as
// its alttext, citations removed, footnotes and captions as their own sentences, the bibliography not ingested.
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { sentences } from '../text/index.js';
import { buildPaper, PaperAssembler, sha256Hex } from './paper.js';
import type { ReadOptions, ReadResult } from './types.js';
import type { PaperMeta } from '../paper/fields.js';
import { normaliseArxivId, parseYear } from '../paper/ids.js';

const isEl = (n: ChildNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';
const classes = (el: Element): string[] => (el.attribs.class ?? '').split(/\s+/).filter(Boolean);
const hasClass = (el: Element, c: string): boolean => classes(el).includes(c);

function find(nodes: ChildNode[], pred: (el: Element) => boolean, out: Element[] = [], deep = true): Element[] {
  for (const n of nodes) {
    if (!isEl(n)) continue;
    if (pred(n)) {
      out.push(n);
      if (!deep) continue;
    }
    find(n.children, pred, out, deep);
  }
  return out;
}
const first = (nodes: ChildNode[], pred: (el: Element) => boolean): Element | undefined => find(nodes, pred, [], false)[0];

/** Deeper than this, markup is dropped and its text kept (real papers nest < 40; the walkers below recurse per level). */
export const MAX_HTML_DEPTH = 256;

/** Elements that never hold children, or whose end tag is optional (they do not deepen the tree reliably). */
const FLAT_TAGS = new Set(
  'area base br col embed hr img input link meta source track wbr p li dt dd tr td th option optgroup thead tbody tfoot colgroup rb rt rtc rp'.split(
    ' ',
  ),
);

/**
 * Drops the tags nested deeper than `maxDepth` before parsing, keeping their text: htmlparser2 costs O(depth) per
 * tag (100,000 nested <div>s: seconds) and the walkers below recurse per level (a stack overflow). One linear scan.
 * Returns the HTML unchanged when nothing is that deep.
 */
export function limitNesting(html: string, maxDepth = MAX_HTML_DEPTH): { html: string; flattened: boolean } {
  const tag = /<(\/?)([a-zA-Z][\w:-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>|<!--[\s\S]*?-->|<(script|style)\b[\s\S]*?<\/\4\s*>/g;
  let depth = 0;
  let flattened = false;
  const parts: string[] = [];
  let last = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    if (!m[2]) continue; // a comment, or a script/style element as a whole
    const name = m[2].toLowerCase();
    if (FLAT_TAGS.has(name) || m[3]) continue;
    const closing = m[1] === '/';
    const deep = closing ? depth > maxDepth : depth >= maxDepth;
    depth = closing ? Math.max(0, depth - 1) : depth + 1;
    if (!deep) continue;
    flattened = true;
    parts.push(html.slice(last, m.index), ' ');
    last = m.index + m[0].length;
  }
  if (!flattened) return { html, flattened };
  parts.push(html.slice(last));
  return { html: parts.join(''), flattened };
}

const SKIP_CLASSES = [
  'ltx_cite',
  'ltx_tag',
  'ltx_note_mark',
  'ltx_bibliography',
  'ltx_equation',
  'ltx_equationgroup',
  'ltx_rdf',
  'ltx_page_footer',
  'ltx_page_header',
  'ltx_ERROR',
];
const SKIP_TAGS = new Set(['script', 'style', 'svg', 'img', 'button', 'nav', 'header', 'footer', 'noscript', 'template']);

/**
 * The text of an element as prose: math as alttext, citations / tags / note marks dropped; footnotes and figures
 * inside are collected separately (`notes`) to be their own sentences after the paragraph.
 */
function proseText(nodes: ChildNode[], notes: string[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') {
      out += n.data;
      continue;
    }
    if (!isEl(n)) continue;
    const tag = n.name.toLowerCase();
    if (SKIP_TAGS.has(tag)) continue;
    if (tag === 'math') {
      const alt = n.attribs.alttext;
      out += alt != null ? alt : textOf(n.children);
      continue;
    }
    if (tag === 'cite' || SKIP_CLASSES.some((c) => hasClass(n, c))) continue;
    if (tag === 'br') {
      out += ' ';
      continue;
    }
    if (hasClass(n, 'ltx_note')) {
      const content = first(n.children, (e) => hasClass(e, 'ltx_note_content'));
      const t = proseText(content ? content.children : n.children, notes).trim();
      if (t) notes.push(t);
      continue;
    }
    if (tag === 'figure' || hasClass(n, 'ltx_figure') || hasClass(n, 'ltx_table')) {
      for (const cap of find(n.children, (e) => e.name === 'figcaption' || hasClass(e, 'ltx_caption'), [], false)) {
        const t = proseText(cap.children, notes).trim();
        if (t) notes.push(t);
      }
      continue;
    }
    if (tag === 'table' || hasClass(n, 'ltx_tabular')) continue;
    const inner = proseText(n.children, notes);
    out += /^(p|div|li|dd|dt|h\d|tr|section|blockquote)$/.test(tag) ? ` ${inner} ` : inner;
  }
  return out;
}

function textOf(nodes: ChildNode[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') out += n.data;
    else if (isEl(n) && !SKIP_TAGS.has(n.name))
      out += n.name === 'math' && n.attribs.alttext != null ? n.attribs.alttext : textOf(n.children);
  }
  return out;
}

const clean = (s: string) =>
  s
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?)])/g, '$1')
    .replace(/\(\s+/g, '(')
    .replace(/\[\s*[,;\s]*\]/g, '')
    .replace(/\(\s*[,;\s]*\)/g, '')
    .replace(/\s+([,.;:!?)])/g, '$1')
    .trim();

/** The text of a LaTeXML tag span ('Figure 1: ', '(2)') without its trailing colon. */
function tagText(el: Element, cls: string): string | null {
  const tag = first(el.children, (e) => hasClass(e, cls));
  return tag ? clean(textOf(tag.children)).replace(/[:.]$/, '').trim() || null : null;
}

/** Table cells as text rows: cells joined by ' | ', one row a line. */
function tableRows(table: Element): string | null {
  const rows = find(table.children, (e) => e.name === 'tr').map((tr) =>
    find(tr.children, (e) => e.name === 'td' || e.name === 'th', [], false)
      .map((td) => clean(textOf(td.children)))
      .join(' | '),
  );
  const kept = rows.filter((r) => r.replace(/[|\s]/g, ''));
  return kept.length ? kept.join('\n') : null;
}

/**
 * A figure, table or display equation as an element: label from LaTeXML's tag ('Figure 1', 'Table 2',
 * 'Equation (3)'), caption from <figcaption>, a table's cells as text rows, an equation's LaTeX from MathML alttext.
 */
function htmlElement(el: Element): Parameters<PaperAssembler['element']>[0] | null {
  if (hasClass(el, 'ltx_equation') || hasClass(el, 'ltx_equationgroup')) {
    const maths = find(el.children, (e) => e.name === 'math');
    const content =
      maths
        .map((m) => m.attribs.alttext ?? clean(textOf(m.children)))
        .filter(Boolean)
        .join('\n') || null;
    if (!content) return null;
    const tags = find(el.children, (e) => hasClass(e, 'ltx_tag_equation'))
      .map((t) => clean(textOf(t.children)).replace(/^\(|\)$/g, ''))
      .filter(Boolean);
    const unique = [...new Set(tags)];
    const label = !unique.length
      ? null
      : unique.length === 1
        ? `Equation (${unique[0]})`
        : `Equations (${unique[0]})–(${unique[unique.length - 1]})`;
    return { type: 'equation', label, caption: null, content, page: null, bbox: null };
  }
  const table = hasClass(el, 'ltx_table');
  if (!table && el.name !== 'figure' && !hasClass(el, 'ltx_figure')) return null;
  const cap = first(el.children, (e) => e.name === 'figcaption' || hasClass(e, 'ltx_caption'));
  const caption = cap ? clean(proseText(cap.children, [])) || null : null;
  const label = cap ? (tagText(cap, table ? 'ltx_tag_table' : 'ltx_tag_figure') ?? tagText(cap, 'ltx_tag')) : null;
  const tabular = table ? first(el.children, (e) => e.name === 'table' || hasClass(e, 'ltx_tabular')) : undefined;
  return { type: table ? 'table' : 'figure', label, caption, content: tabular ? tableRows(tabular) : null, page: null, bbox: null };
}

function emitElement(asm: PaperAssembler, el: Element): void {
  const e = htmlElement(el);
  if (e) asm.element(e);
}

/** Sentences of a prose block (and its notes/captions after it). */
function emitBlock(asm: PaperAssembler, el: Element | ChildNode[]): void {
  const notes: string[] = [];
  const text = clean(proseText(Array.isArray(el) ? el : [el], notes));
  if (text) for (const s of sentences(text, 'text')) asm.sentence(s.clean);
  for (const n of notes) for (const s of sentences(clean(n), 'text')) asm.sentence(s.clean);
}

const SECTION_CLASSES = [
  'ltx_part',
  'ltx_chapter',
  'ltx_section',
  'ltx_subsection',
  'ltx_subsubsection',
  'ltx_paragraph',
  'ltx_subparagraph',
  'ltx_appendix',
];
const LEVEL: Record<string, number> = {
  ltx_part: 0,
  ltx_chapter: 0,
  ltx_section: 1,
  ltx_appendix: 1,
  ltx_subsection: 2,
  ltx_subsubsection: 3,
  ltx_paragraph: 4,
  ltx_subparagraph: 5,
};

function sectionHeading(sec: Element): { title: string; number: string | null } {
  const h = first(sec.children, (e) => /^h[1-6]$/.test(e.name) && hasClass(e, 'ltx_title'));
  if (!h) return { title: '', number: null };
  const tag = first(h.children, (e) => hasClass(e, 'ltx_tag'));
  let number: string | null = tag
    ? clean(textOf(tag.children))
        .replace(/^(?:Appendix|Section)\s+/i, '')
        .replace(/[.:]$/, '') || null
    : null;
  const title = clean(proseText(h.children, []));
  if (number && !/^[\dA-Z]+(?:\.[\dA-Z]+)*$/.test(number)) number = null;
  return { title, number };
}

function walkSection(asm: PaperAssembler, nodes: ChildNode[]): void {
  for (const n of nodes) {
    if (!isEl(n)) continue;
    if (n.name === 'section' || SECTION_CLASSES.some((c) => hasClass(n, c))) {
      if (hasClass(n, 'ltx_bibliography')) {
        asm.section('References', null, 1);
        continue;
      }
      const cls = SECTION_CLASSES.find((c) => hasClass(n, c));
      const { title, number } = sectionHeading(n);
      asm.section(title, number, cls ? LEVEL[cls] : 1);
      walkSection(asm, n.children);
      continue;
    }
    if (hasClass(n, 'ltx_bibliography')) {
      asm.section('References', null, 1);
      continue;
    }
    if (hasClass(n, 'ltx_acknowledgements') || hasClass(n, 'ltx_acknowledgement')) {
      asm.section('Acknowledgements', null, 1);
      const notes: ChildNode[] = n.children.filter((c) => !(isEl(c) && (hasClass(c, 'ltx_title') || /^h[1-6]$/.test(c.name))));
      emitBlock(asm, notes);
      continue;
    }
    if (/^h[1-6]$/.test(n.name) && hasClass(n, 'ltx_title')) continue;
    if (hasClass(n, 'ltx_para') || n.name === 'p' || hasClass(n, 'ltx_p')) {
      emitParagraph(asm, n);
      continue;
    }
    if (
      n.name === 'figure' ||
      hasClass(n, 'ltx_figure') ||
      hasClass(n, 'ltx_table') ||
      n.name === 'ul' ||
      n.name === 'ol' ||
      hasClass(n, 'ltx_theorem') ||
      hasClass(n, 'ltx_proof')
    ) {
      emitElement(asm, n);
      emitBlock(asm, n);
      continue;
    }
    if (hasClass(n, 'ltx_equation') || hasClass(n, 'ltx_equationgroup') || n.name === 'table') {
      emitElement(asm, n);
      continue;
    }
    walkSection(asm, n.children);
  }
}

/** A paragraph: its ltx_p children one by one (lists, figures inside are blocks of their own). */
function emitParagraph(asm: PaperAssembler, para: Element): void {
  const ps = para.children.filter(isEl);
  const structured =
    ps.length > 0 &&
    ps.every(
      (e) =>
        hasClass(e, 'ltx_p') ||
        e.name === 'p' ||
        hasClass(e, 'ltx_equation') ||
        hasClass(e, 'ltx_equationgroup') ||
        e.name === 'table' ||
        e.name === 'figure' ||
        e.name === 'ul' ||
        e.name === 'ol' ||
        hasClass(e, 'ltx_itemize') ||
        hasClass(e, 'ltx_enumerate'),
    );
  if (!structured) return emitBlock(asm, para);
  let run: ChildNode[] = [];
  const flush = () => {
    if (run.length) emitBlock(asm, run);
    run = [];
  };
  for (const c of para.children) {
    if (isEl(c) && (hasClass(c, 'ltx_equation') || hasClass(c, 'ltx_equationgroup'))) {
      // Display math: inline text around it continues the sentence; the equation follows the sentence before it.
      emitElement(asm, c);
      continue;
    }
    if (
      isEl(c) &&
      (c.name === 'figure' || c.name === 'ul' || c.name === 'ol' || hasClass(c, 'ltx_itemize') || hasClass(c, 'ltx_enumerate'))
    ) {
      flush();
      emitElement(asm, c);
      emitBlock(asm, c);
      continue;
    }
    run.push(c);
  }
  flush();
}

function metaContent(doc: ChildNode[], name: string): string | null {
  const m = first(doc, (e) => e.name === 'meta' && (e.attribs.name === name || e.attribs.property === name));
  return m?.attribs.content?.trim() || null;
}

/** Read one arXiv/ar5iv LaTeXML HTML page. */
export function readArxivHtmlText(html: string, path: string | null, options: ReadOptions = {}, contentHash = sha256Hex(html)): ReadResult {
  const limited = limitNesting(html);
  const flattened = limited.flattened;
  const doc = parseDocument(limited.html, { decodeEntities: true }).children;
  const article = first(doc, (e) => e.name === 'article' || hasClass(e, 'ltx_document')) ?? first(doc, (e) => e.name === 'body');
  const root = article ? article.children : doc;

  const titleEl = first(root, (e) => hasClass(e, 'ltx_title_document')) ?? first(doc, (e) => e.name === 'title');
  const title = titleEl ? clean(proseText(titleEl.children, [])) || null : metaContent(doc, 'citation_title');

  const authorsEl = first(root, (e) => hasClass(e, 'ltx_authors'));
  let authors: string[] = [];
  if (authorsEl) {
    authors = find(authorsEl.children, (e) => hasClass(e, 'ltx_personname'), [], false).flatMap((p) => {
      // A personname may hold several names separated by <br>, commas or "and", with affiliations after a <br>.
      const firstLine: ChildNode[] = [];
      for (const c of p.children) {
        if (isEl(c) && c.name === 'br') break;
        firstLine.push(c);
      }
      return clean(proseText(firstLine, []))
        .split(/\s*(?:,|\band\b|&)\s*/)
        .map((s) => s.replace(/[\d*†‡§]+$/g, '').trim())
        .filter((s) => s.length > 1);
    });
  }
  if (!authors.length)
    authors = find(doc, (e) => e.name === 'meta' && e.attribs.name === 'citation_author')
      .map((e) => e.attribs.content ?? '')
      .filter(Boolean);

  const asm = new PaperAssembler();
  const abstractEl = first(root, (e) => hasClass(e, 'ltx_abstract'));
  if (abstractEl) {
    asm.section('Abstract', null, 1);
    for (const c of abstractEl.children) {
      if (!isEl(c) || /^h[1-6]$/.test(c.name) || hasClass(c, 'ltx_title')) continue;
      if (hasClass(c, 'ltx_para')) emitParagraph(asm, c);
      else emitBlock(asm, c);
    }
  }
  const body = root.filter(
    (n) =>
      !(
        isEl(n) &&
        (hasClass(n, 'ltx_abstract') ||
          hasClass(n, 'ltx_authors') ||
          hasClass(n, 'ltx_title_document') ||
          hasClass(n, 'ltx_classification') ||
          hasClass(n, 'ltx_keywords') ||
          hasClass(n, 'ltx_dates'))
      ),
  );
  walkSection(asm, body);

  const idText =
    metaContent(doc, 'citation_arxiv_id') ?? first(doc, (e) => e.name === 'link' && e.attribs.rel === 'canonical')?.attribs.href ?? null;
  const meta: PaperMeta = {
    title,
    authors,
    year: parseYear(
      metaContent(doc, 'citation_date') ??
        metaContent(doc, 'citation_publication_date') ??
        (first(root, (e) => hasClass(e, 'ltx_dates')) ? textOf(first(root, (e) => hasClass(e, 'ltx_dates'))!.children) : null),
    ),
    doi: metaContent(doc, 'citation_doi'),
    arxivId: normaliseArxivId(idText ?? '') ?? (path ? normaliseArxivId(/(\d{4}\.\d{4,5})(v\d+)?\.html?$/.exec(path)?.[1] ?? '') : null),
    venue: metaContent(doc, 'citation_journal_title') ?? metaContent(doc, 'citation_conference_title'),
  };
  const paper = buildPaper(meta, asm.finish(), { path, contentHash }, options.bib, asm.abstractParts);
  const warnings = flattened
    ? [{ file: path ?? '<html>', reason: `markup nested deeper than ${MAX_HTML_DEPTH} levels: read as plain text below that depth` }]
    : [];
  return { papers: [paper], errors: [], warnings };
}
