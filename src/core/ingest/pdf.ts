// PDF: a PDF's bytes → its layout (pdf-layout.ts: text runs → lines in reading order) → a paper (pdf-assemble.ts:
// lines → title, sections, sentences with their pages).
import { sha256Hex } from './paper.js';
import { pdfLayout } from './pdf-layout.js';
import { paperFromLayout } from './pdf-assemble.js';
import type { ReadOptions, ReadResult } from './types.js';

export { pdfLayout, pdfPageCount, type PdfLayout, type PdfLine } from './pdf-layout.js';
export { paperFromLayout } from './pdf-assemble.js';

/** Read one PDF (bytes) into a paper. */
export async function readPdfBytes(
  data: Uint8Array,
  path: string | null,
  options: ReadOptions = {},
  contentHash = sha256Hex(data),
): Promise<ReadResult> {
  const layout = await pdfLayout(data, options.signal);
  return paperFromLayout(layout, path, contentHash, options);
}
