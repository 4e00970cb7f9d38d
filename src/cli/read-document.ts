import { readFile } from 'node:fs/promises';
import { CliError } from './command.js';

/** Largest document the CLI reads: far beyond any paper, small enough to refuse a stray data file. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** Reads a text document from FILE or stdin; refuses binary content and unreadable files with one line. */
export async function readDocument(file: string | undefined): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = file === undefined || file === '-' ? await readStdin() : await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = file ?? 'stdin';
    if (code === 'ENOENT') throw new CliError(`${what}: no such file`);
    if (code === 'EISDIR') throw new CliError(`${what}: is a directory, not a document`);
    throw new CliError(`${what}: cannot read (${(err as Error).message})`);
  }
  if (bytes.length > MAX_DOCUMENT_BYTES)
    throw new CliError(`${file ?? 'stdin'}: too large (${bytes.length} bytes; limit ${MAX_DOCUMENT_BYTES})`);
  if (looksBinary(bytes)) throw new CliError(`${file ?? 'stdin'}: looks like a binary file, not a LaTeX/Markdown/text document`);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/** NUL bytes or invalid UTF-8 in the first 8 KiB: a PDF, an image, an archive. */
function looksBinary(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, lastCompleteUtf8(head)));
    return false;
  } catch {
    return true;
  }
}

/** Length of the prefix that ends on a whole UTF-8 character (the 8 KiB cut may split one). */
function lastCompleteUtf8(b: Buffer): number {
  let i = b.length;
  let back = 0;
  while (i > 0 && back < 4 && (b[i - 1] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i > 0 && b[i - 1] >= 0xc0) {
    const need = b[i - 1] >= 0xf0 ? 4 : b[i - 1] >= 0xe0 ? 3 : 2;
    if (back + 1 < need) return i - 1;
  }
  return b.length;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
