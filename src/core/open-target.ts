// What "Open source" may open for a corpus paper. A shared corpus is written by others, so its data is
// untrusted: only a source file under a folder this user indexed, an https:/http: URL, or the DOI resolver.
// Never a file: URL or path elsewhere, a command: link or any other scheme.
import * as path from 'node:path';

export type OpenTarget = { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'none'; reason: string };

export interface PaperLinks {
  doi?: string | null;
  url?: string | null;
  /** The file the paper was indexed from, as the corpus records it. */
  sourcePath?: string | null;
}

/** The local file (under one of `roots`), else the DOI, else an http(s) URL; with why nothing, when nothing. */
export function openTarget(paper: PaperLinks, roots: readonly string[]): OpenTarget {
  const refused: string[] = [];
  if (paper.sourcePath) {
    if (isUnder(paper.sourcePath, roots)) return { kind: 'file', path: path.resolve(paper.sourcePath) };
    refused.push(`its source file ${paper.sourcePath} is not under a folder you indexed`);
  }
  const doi = paper.doi?.trim().replace(/^https?:\/\/(dx\.)?doi\.org\//i, '');
  if (doi && /^10\.\d{4,9}\/\S+$/.test(doi))
    return { kind: 'url', url: `https://doi.org/${doi.split('/').map(encodeURIComponent).join('/')}` };
  if (paper.url) {
    const url = safeWebUrl(paper.url);
    if (url) return { kind: 'url', url };
    refused.push(`its URL ${paper.url.slice(0, 80)} is not an https:/http: link`);
  }
  return { kind: 'none', reason: refused.length ? `not opened: ${refused.join('; ')}` : 'no DOI, URL or source file is recorded' };
}

/** The URL, normalised, when it is https: or http: (and carries no credentials); else null. */
export function safeWebUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username || u.password) return null;
  return u.toString();
}

/** True when `file` is an absolute path inside one of `roots` (after resolving `..`). */
export function isUnder(file: string, roots: readonly string[]): boolean {
  if (!path.isAbsolute(file)) return false;
  const resolved = path.resolve(file);
  return roots.some((root) => {
    const rel = path.relative(path.resolve(root), resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/** The 0-based line of the source text where a corpus sentence (its clean text) starts, or 0 if not found. */
export function lineOfSentence(text: string, sentence: string): number {
  const words = sentence.split(/\s+/).filter(Boolean);
  for (const n of [8, 5, 3]) {
    if (words.length < Math.min(n, 2)) continue;
    const probe = words
      .slice(0, n)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s~]+');
    const m = new RegExp(probe).exec(text);
    if (m) return text.slice(0, m.index).split('\n').length - 1;
  }
  return 0;
}
