// A PDF table's rows and cells as text, in the form the LaTeX reader stores a tabular's (latex-elements.ts): cells
// joined by ' | ', one row a line, so that element search finds the same table in a PDF and in its source. The rows
// are the table's lines (one baseline each, pdf-layout.ts); a row's cells are its spans (text between gaps wider
// than a word space). Columns are the x-ranges the fullest rows' cells cover: a header cell set over two columns
// (\multicolumn) or a row with empty cells does not merge or add columns, and a cell that crosses a column boundary
// is one cell standing for the columns it covers, as \multicolumn is one cell of its row in the source.
import type { PdfLine, PdfSpan } from './pdf-layout.js';

/** Rows kept of a table (a longer one is cut at a row: enough to find it by its content, and to show it on a card). */
const MAX_ROWS = 60;
/** Characters kept of a table's text, cut at a row. */
const MAX_CHARS = 4000;

/** Whether a line is set as cells: two or more runs of text apart by more than a word space. */
export function cellCount(l: PdfLine): number {
  return l.spans?.length ?? l.parts.length;
}

/** The rows of a table region's lines (in reading order, caption left out), or null when none holds text. */
export function pdfTableRows(lines: readonly PdfLine[]): string | null {
  const rows = lines.map((l) => (l.spans?.length ? l.spans : [{ text: l.text, x0: l.x0, x1: l.x1 }]));
  const columns = columnsOf(rows);
  const out: string[] = [];
  let chars = 0;
  for (const row of rows) {
    const text = cellsOf(row, columns).join(' | ');
    if (!text.replace(/[|\s]/g, '')) continue;
    if (out.length >= MAX_ROWS || chars + text.length > MAX_CHARS) break;
    out.push(text);
    chars += text.length + 1;
  }
  return out.length ? out.join('\n') : null;
}

/** The columns' x-ranges, left to right: the union of the cells of the rows with the most cells. */
function columnsOf(rows: readonly PdfSpan[][]): Array<[number, number]> {
  const most = Math.max(...rows.map((r) => r.length));
  const ranges = rows
    .filter((r) => r.length === most)
    .flat()
    .map((s): [number, number] => [s.x0, s.x1])
    .sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([...r]);
  }
  return out;
}

/**
 * A row's cells, one per column from the first: a span belongs to the columns its ends fall in (the boundary between
 * two columns is the middle of the gap between them), so a span over several columns is one cell for all of them
 * and two spans in one column are one cell. Empty cells between filled ones stay (as `a |  | c`); trailing empty
 * ones are dropped.
 */
function cellsOf(row: readonly PdfSpan[], columns: ReadonlyArray<[number, number]>): string[] {
  const column = (x: number) => {
    let i = 0;
    while (i + 1 < columns.length && x >= (columns[i][1] + columns[i + 1][0]) / 2) i++;
    return i;
  };
  const cells: Array<string | null> = columns.map(() => '');
  for (const s of row) {
    let first = column(s.x0);
    const last = Math.max(first, column(s.x1));
    // Inside a cell that spans columns: part of it.
    while (first > 0 && cells[first] === null) first--;
    cells[first] = cells[first] ? `${cells[first]} ${s.text}` : s.text;
    for (let i = first + 1; i <= last; i++) cells[i] = null;
  }
  const kept = cells.filter((c): c is string => c !== null);
  while (kept.length && !kept[kept.length - 1]) kept.pop();
  return kept;
}
