// Bytes of a text source (LaTeX, Markdown, HTML, .bib) to a string, per file, without losing or corrupting text
// silently: a BOM picks UTF-8/UTF-16; UTF-16 without a BOM is recognised by its zero bytes; text that is not valid
// UTF-8 is read as Windows-1252 (the superset of Latin-1 old .tex files are in) with a warning; NUL bytes are
// removed with a warning (PostgreSQL text cannot hold them, and one used to abort a whole ingest); data that is not
// text at all (random bytes, an image renamed .tex) is refused with a reason. Never throws anything but NotTextError.

export class NotTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotTextError';
  }
}

export interface DecodedText {
  text: string;
  /** What was done to read it (e.g. "not UTF-8: read as Windows-1252"); empty when it was plain UTF-8. */
  warnings: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Windows-1252's 0x80–0x9F (Node's TextDecoder without full ICU decodes 'windows-1252' as Latin-1: C1 controls). */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function windows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    out += String.fromCharCode(...chunk).replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
  }
  return out;
}

/** Share of zero bytes at even and odd offsets of the first 4 KB (UTF-16 text of ASCII has one of them near 1/2). */
function zeroShares(b: Uint8Array): { even: number; odd: number } {
  const n = Math.min(b.length, 4096) & ~1;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) even++;
    if (b[i + 1] === 0) odd++;
  }
  return { even: n ? even / (n / 2) : 0, odd: n ? odd / (n / 2) : 0 };
}

/** Share of characters that text does not have: C0 controls other than tab/newline/CR/form feed, and U+FFFD. */
function controlShare(text: string): number {
  if (!text.length) return 0;
  let bad = 0;
  const n = Math.min(text.length, 65_536);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) || c === 0xfffd || (c >= 0x7f && c < 0xa0)) bad++;
  }
  return bad / n;
}

/** Decodes a text file's bytes (see the module comment); `what` names the format in messages ("LaTeX"). */
export function decodeText(bytes: Uint8Array, what = 'text'): DecodedText {
  const warnings: string[] = [];
  let text: string;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    text = new TextDecoder('utf-8').decode(bytes.subarray(3));
  } else if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    text = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes.subarray(2));
    warnings.push(`UTF-16 ${bytes[0] === 0xff ? 'LE' : 'BE'} (byte order mark): read as such`);
  } else {
    const z = zeroShares(bytes);
    if (bytes.length >= 8 && (z.odd > 0.3 || z.even > 0.3) && Math.min(z.odd, z.even) < 0.05) {
      text = new TextDecoder(z.odd > z.even ? 'utf-16le' : 'utf-16be').decode(bytes);
      warnings.push(`UTF-16 ${z.odd > z.even ? 'LE' : 'BE'} without a byte order mark: read as such`);
    } else {
      try {
        text = utf8.decode(bytes);
      } catch {
        text = windows1252(bytes);
        warnings.push('not valid UTF-8: read as Windows-1252 (Latin-1); save the file as UTF-8 if accented letters look wrong');
      }
    }
  }
  const nuls = text.split('\u0000').length - 1;
  if (controlShare(text.replace(/\u0000/g, nuls > 16 ? '\u0001' : '')) > 0.02) {
    throw new NotTextError(`not ${what}: the file holds binary data (random bytes, or a file of another type with this name)`);
  }
  if (nuls) {
    text = text.replace(/\u0000/g, '');
    warnings.push(`${nuls} NUL byte${nuls === 1 ? '' : 's'} removed`);
  }
  return { text, warnings };
}
