// A paper's content fingerprint: the set of its word shingles (runs of consecutive words, normalised), hashed. Two
// readings of the same work (its LaTeX source and its typeset PDF, a draft and the copy of it indexed yesterday)
// share most shingles even where hyphenation, mathematics and citations differ; two different papers share almost
// none. Exact sets, not MinHash sketches: a paper has a few thousand shingles, and exact containment is what
// decides "this draft is that paper" with no sampling error. A leaf.

/** Words per shingle: three keeps a shingle specific to one text while a reading's small differences (a dropped
 * citation, a hyphenated word) break only the shingles that cross it. */
export const SHINGLE_WORDS = 3;

/** Shingles a fingerprint needs before it is compared at all: a few sentences. A title alone identifies nothing. */
export const MIN_SHINGLES = 20;

/** 32-bit FNV-1a of a string: the shingle's hash. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The words of a text as matched: accents folded, lower case, letters and digits only. */
function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The hashed shingles of some texts (each text shingled on its own: a shingle never spans two sentences). */
export function fingerprint(texts: Iterable<string>, n = SHINGLE_WORDS): Set<number> {
  const out = new Set<number>();
  for (const text of texts) {
    const w = words(text);
    for (let i = 0; i + n <= w.length; i++) out.add(fnv1a(w.slice(i, i + n).join(' ')));
  }
  return out;
}

/** Share of `a`'s shingles that are in `b` (0 for an empty `a`). */
export function containment(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (!a.size) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / a.size;
}

/** The share of the smaller of two fingerprints that two readings of one work share at least (see sameWork). */
export const SAME_WORK = 0.8;

/**
 * Whether two fingerprints are the same work: either holds at least `threshold` of the other's shingles (default
 * 0.8: a LaTeX source and its PDF share ~0.99, a draft and its indexed earlier version most; papers from one template
 * with other facts up to ~0.6). Containment, not resemblance: a draft that has grown since it was indexed still holds all of the indexed
 * copy, and a PDF's extra running text (headers, the reference list) does not dilute it. Both need MIN_SHINGLES.
 */
export function sameWork(a: ReadonlySet<number>, b: ReadonlySet<number>, threshold = SAME_WORK): boolean {
  if (a.size < MIN_SHINGLES || b.size < MIN_SHINGLES) return false;
  return Math.max(containment(a, b), containment(b, a)) >= threshold;
}
