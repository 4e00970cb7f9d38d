// One pass over a Markdown document's lines: the non-prose blocks (front matter, fenced and indented code,
// math, HTML, tables, headings, rules, link definitions) and the headings.
import { markdownCleanText } from './markdown-inline.js';
import type { Range } from './ranges.js';
import type { Heading } from './types.js';

export interface MarkdownOutline {
  blocks: Range[];
  headings: Heading[];
  /** The front matter's `title:`, else the first level-1 heading. */
  title: string | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const RULE = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const NON_PROSE_LINE = /^ {0,3}(?:<(?:[a-zA-Z/!?]|$)|\||\[[^\]^]+\]:\s|:::|\$\$|\\\[|\\begin\{|\\end\{|\{\{)/;

interface Line {
  start: number;
  end: number;
  text: string;
}

export function markdownOutline(text: string): MarkdownOutline {
  const outline: MarkdownOutline = { blocks: [], headings: [], title: null };
  const lines = splitLines(text);
  let i = frontMatter(lines, outline);
  let prevBlank = true;
  let inList = false;
  while (i < lines.length) {
    const line = lines[i];
    const next = closingLine(lines, i);
    if (next > i) {
      addBlock(outline, line.start, lines[next - 1].end);
      i = next;
      prevBlank = false;
      continue;
    }
    const blank = line.text.trim() === '';
    if (!blank) inList = LIST_ITEM.test(line.text) || (inList && /^[ \t]/.test(line.text));
    if (!blank && lineIsBlock(line, lines[i + 1], prevBlank, inList, outline)) {
      const setext = isSetext(line, lines[i + 1]) ? 1 : 0;
      addBlock(outline, line.start, lines[i + setext].end);
      i += 1 + setext;
      prevBlank = false;
      continue;
    }
    prevBlank = blank;
    i++;
  }
  if (outline.title === null) outline.title = outline.headings.find((h) => h.level === 1)?.title ?? null;
  return outline;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    lines.push({ start, end, text: text.slice(start, end).replace(/\r$/, '') });
    if (nl < 0) break;
    start = nl + 1;
  }
  return lines;
}

/** YAML front matter at the very top is a block; its `title:` is the document's title. */
function frontMatter(lines: Line[], outline: MarkdownOutline): number {
  if (lines[0]?.text !== '---') return 0;
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i].text;
    const title = /^title:\s*(.+)$/.exec(t);
    if (title && outline.title === null) outline.title = title[1].trim().replace(/^(["'])(.*)\1$/, '$2');
    if (t === '---' || t === '...') {
      addBlock(outline, 0, lines[i].end);
      return i + 1;
    }
  }
  return 0;
}

/** For a line opening a fenced code or `$$` math block, the index after its closing line; else i. */
function closingLine(lines: Line[], i: number): number {
  const t = lines[i].text;
  const fence = FENCE.exec(t);
  if (fence) {
    const mark = fence[1];
    for (let j = i + 1; j < lines.length; j++) {
      const m = FENCE.exec(lines[j].text);
      if (m && m[1][0] === mark[0] && m[1].length >= mark.length && lines[j].text.trim() === m[1]) return j + 1;
    }
    return lines.length;
  }
  const math = /^ {0,3}(\$\$|\\\[)(.*)$/.exec(t);
  if (math) {
    const close = math[1] === '$$' ? '$$' : '\\]';
    if (math[2].includes(close)) return i + 1;
    for (let j = i + 1; j < lines.length; j++) if (lines[j].text.includes(close)) return j + 1;
    return lines.length;
  }
  return i;
}

function lineIsBlock(line: Line, next: Line | undefined, prevBlank: boolean, inList: boolean, outline: MarkdownOutline): boolean {
  const t = line.text;
  const atx = ATX.exec(t);
  if (atx) {
    addHeading(outline, line, atx[1].length, atx[2] ?? '');
    return true;
  }
  if (isSetext(line, next)) {
    addHeading(outline, line, next!.text.trim()[0] === '=' ? 1 : 2, t.trim());
    return true;
  }
  if (RULE.test(t) || NON_PROSE_LINE.test(t)) return true;
  return prevBlank && !inList && /^(?: {4}|\t)/.test(t); // indented code
}

/** A text line underlined by `===` or `---` is a heading. */
function isSetext(line: Line, next: Line | undefined): boolean {
  return (
    !!next &&
    SETEXT.test(next.text) &&
    !LIST_ITEM.test(line.text) &&
    !NON_PROSE_LINE.test(line.text) &&
    !ATX.test(line.text) &&
    !RULE.test(line.text)
  );
}

function addHeading(outline: MarkdownOutline, line: Line, level: number, raw: string): void {
  const title = markdownCleanText(raw.replace(/\s*\{[#.][^}]*\}\s*$/, ''));
  outline.headings.push({ start: line.start, end: line.end, level, title });
}

function addBlock(outline: MarkdownOutline, start: number, end: number): void {
  const last = outline.blocks[outline.blocks.length - 1];
  if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
  else outline.blocks.push({ start, end });
}
