// Figures, tables and equations of a LaTeX document, stored as elements beside its sentences: the `figure`, `table`, `equation` and
// `align` environments (starred too) with their \caption, \label, table cells as text rows and equation LaTeX, and
// the numbers LaTeX's article class prints for them (a float is numbered by its \caption; an equation line unless
// \nonumber / \notag; \tag{x} prints x). Offsets are into the text given, so the reader can place each element
// among its sentences.
import { latexCleanText } from '../text/latex-inline.js';
import type { ElementType } from '../store/types.js';

export interface LatexElement {
  /** Offset of \begin{…} in the text. */
  start: number;
  type: ElementType;
  label: string | null;
  labelKey: string | null;
  caption: string | null;
  content: string | null;
}

const ENVS: Record<string, ElementType> = {
  figure: 'figure',
  'figure*': 'figure',
  table: 'table',
  'table*': 'table',
  equation: 'equation',
  'equation*': 'equation',
  align: 'equation',
  'align*': 'equation',
};

const BEGIN = /\\begin\s*\{(figure\*?|table\*?|equation\*?|align\*?)\}/g;

/** The balanced-brace group starting at text[i] === '{': [content, indexAfter], or null. */
export function bracedAt(text: string, i: number): [string, number] | null {
  if (text[i] !== '{') return null;
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return [text.slice(i + 1, j), j + 1];
  }
  return null;
}

/** Skips whitespace and one optional [..] argument (balanced over nested brackets is not needed for captions). */
function skipOptional(text: string, i: number): number {
  let j = i;
  while (/\s/.test(text[j] ?? '')) j++;
  if (text[j] !== '[') return j;
  let depth = 0;
  for (; j < text.length; j++) {
    if (text[j] === '[') depth++;
    else if (text[j] === ']' && --depth === 0) return skipSpaces(text, j + 1);
  }
  return i;
}

function skipSpaces(text: string, i: number): number {
  while (/\s/.test(text[i] ?? '')) i++;
  return i;
}

/** The first required argument of \name in body (after any [..]), or null. */
function firstArg(body: string, name: string): string | null {
  const re = new RegExp(`\\\\${name}(?![a-zA-Z@])\\*?`, 'g');
  const m = re.exec(body);
  if (!m) return null;
  return bracedAt(body, skipOptional(body, m.index + m[0].length))?.[0] ?? null;
}

/** The end of the environment `name` opened before `from` (nested same-name environments counted), or -1. */
function envEnd(text: string, name: string, from: number): { bodyEnd: number; end: number } | null {
  const esc = name.replace('*', '\\*');
  const re = new RegExp(`\\\\(begin|end)\\s*\\{${esc}\\}`, 'g');
  re.lastIndex = from;
  let depth = 1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    depth += m[1] === 'begin' ? 1 : -1;
    if (depth === 0) return { bodyEnd: m.index, end: m.index + m[0].length };
  }
  return null;
}

/** Splits at top-level (brace depth 0) occurrences of `sep` (a regex source without flags). */
function splitTop(text: string, sep: RegExp): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      if (depth === 0) {
        sep.lastIndex = i;
        const m = sep.exec(text);
        if (m && m.index === i) {
          out.push(text.slice(from, i));
          from = i + m[0].length;
          i = from - 1;
          continue;
        }
      }
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0 && sep.source === '&' && c === '&') {
      out.push(text.slice(from, i));
      from = i + 1;
    }
  }
  out.push(text.slice(from));
  return out;
}

const RULES =
  /\\(?:hline|toprule|midrule|bottomrule|cmidrule(?:\([^)]*\))?\s*\{[^{}]*\}|cline\s*\{[^{}]*\}|addlinespace(?:\[[^\]]*\])?|noalign\s*\{[^{}]*\}|centering|small|footnotesize|scriptsize)/g;

/** The cells of every tabular in a table body, as text rows: cells joined by ' | ', one row a line. */
export function tabularRows(body: string): string | null {
  const rows: string[] = [];
  const re = /\\begin\s*\{(tabular\*?|tabularx|tabulary|longtable)\}/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const env = m[1];
    let i = m.index + m[0].length;
    // tabular*, tabularx, tabulary: a width argument before the column spec.
    const args = env === 'tabular' || env === 'longtable' ? 1 : 2;
    i = skipOptional(body, i);
    for (let a = 0; a < args; a++) {
      const g = bracedAt(body, skipSpaces(body, i));
      if (!g) break;
      i = g[1];
    }
    const end = envEnd(body, env, i);
    if (!end) continue;
    const inner = body.slice(i, end.bodyEnd).replace(RULES, ' ');
    for (const row of splitTop(inner, /\\\\(?:\[[^\]]*\])?/y)) {
      const cells = splitTop(row, /&/y).map((c) => latexCleanText(c.replace(/\\multicolumn\s*\{[^{}]*\}\s*\{[^{}]*\}/g, '')));
      if (cells.some((c) => c)) rows.push(cells.join(' | '));
    }
    re.lastIndex = end.end;
  }
  return rows.length ? rows.join('\n') : null;
}

/** Every element of the text in document order, numbered as the article class numbers them. */
export function latexElements(text: string): LatexElement[] {
  const out: LatexElement[] = [];
  let figures = 0;
  let tables = 0;
  let equations = 0;
  const re = new RegExp(BEGIN.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const env = m[1];
    const type = ENVS[env];
    const end = envEnd(text, env, m.index + m[0].length);
    if (!end) continue;
    const body = text.slice(m.index + m[0].length, end.bodyEnd);
    // An align with several \label lines keeps them all (comma-separated), so that a \ref to any of them finds it.
    const labelKey =
      [...body.matchAll(/\\label\s*\{([^{}]*)\}/g)]
        .map((k) => k[1].trim())
        .filter(Boolean)
        .join(',') || null;
    if (type === 'equation') {
      const numbered = equationNumbers(env, body);
      const labels: string[] = [];
      for (const n of numbered) {
        if (n === null) labels.push(String(++equations));
        else labels.push(n);
      }
      const label =
        labels.length === 0
          ? null
          : labels.length === 1
            ? `Equation (${labels[0]})`
            : `Equations (${labels[0]})–(${labels[labels.length - 1]})`;
      const content = body
        .replace(/\\(?:label|tag\*?)\s*\{[^{}]*\}/g, '')
        .replace(/\\(?:nonumber|notag)\b/g, '')
        .replace(/[ \t]+/g, ' ')
        .replace(/\s*\n\s*/g, '\n')
        .trim();
      out.push({ start: m.index, type, label, labelKey, caption: null, content: content || null });
    } else {
      const rawCaption = firstArg(body, 'caption');
      const caption = rawCaption == null ? null : latexCleanText(rawCaption.replace(/\\label\s*\{[^{}]*\}/g, '')) || null;
      let label: string | null = null;
      if (rawCaption != null) label = type === 'figure' ? `Figure ${++figures}` : `Table ${++tables}`;
      out.push({ start: m.index, type, label, labelKey, caption, content: type === 'table' ? tabularRows(body) : null });
    }
    // Nested elements (an equation inside a figure) are rare; a float's body is not scanned again.
    re.lastIndex = end.end;
  }
  return out;
}

/** One entry per numbered line: null = takes the next number, a string = its \tag. */
function equationNumbers(env: string, body: string): (string | null)[] {
  const starred = env.endsWith('*');
  const lines = env.startsWith('align') ? splitTop(body, /\\\\(?:\[[^\]]*\])?/y).filter((l) => l.trim()) : [body];
  const out: (string | null)[] = [];
  for (const line of lines) {
    const tag = /\\tag\*?\s*\{([^{}]*)\}/.exec(line);
    if (tag) out.push(tag[1].trim());
    else if (!starred && !/\\(?:nonumber|notag)\b/.test(line)) out.push(null);
  }
  return out;
}
