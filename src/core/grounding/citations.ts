// Citations the write step was told not to produce: narrative author-year ("Smith et al. (2020)", "Smith and
// Lee [2020]"), parenthetical ("(Smith et al., 2020; Lee 2021)"), raw \cite{…}/\citep{…}, Pandoc [@key], numeric
// [12] and plain keys [smith2099]. Each is detected; one that resolves (surname + year, or a key's surname and
// year) to a paper among the section's quotes becomes that paper's short id, any other is removed and reported
// so that the claim resting on it is judged unsupported. An author named without a year must be such a paper's.
import type { PaperRef } from '../store/types.js';
import { authorYearList, LATEX_CITE, NARRATIVE, NUMERIC, PANDOC, pandocKeys, PARENTHETICAL, SURNAME } from '../bib/in-text.js';

export interface CitablePaper {
  shortId: string;
  paper: Pick<PaperRef, 'authors' | 'year'>;
}

export interface ForeignCitations {
  /** The sentence with resolved citations as [P<n>] and unresolvable ones removed. */
  text: string;
  resolved: { form: string; shortId: string }[];
  unresolved: string[];
}

/** `[smith2099]`, `(smith2099quantum; lee2020)`: a lower-case word with a year, i.e. a citation key. */
const PLAIN_KEY =
  /\s*[[(]\s*([a-z][\p{L}'-]*?(?:1[89]|20|21)\d{2}[\w:-]*(?:\s*[,;]\s*[a-z][\p{L}'-]*?(?:1[89]|20|21)\d{2}[\w:-]*)*)\s*[\])]/gu;
/** An author named in the prose without a year: "Smith et al. showed". */
const ET_AL = new RegExp(String.raw`(${SURNAME})\s+et\s+al\.?`, 'gu');

function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’']/g, "'");
}

/** Whether the paper has an author with this surname (multi-word surnames: the name ends with it or contains it). */
function hasAuthor(p: CitablePaper, surname: string): boolean {
  const s = fold(surname).trim();
  return p.paper.authors.some((a) => {
    const name = fold(a);
    return name === s || name.endsWith(` ${s}`) || name.split(/[\s,]+/).includes(s) || name.startsWith(`${s},`);
  });
}

/** The one section paper with this first author's surname (and year when given), else null. */
export function resolveAuthorYear(papers: readonly CitablePaper[], surname: string, year: string | null): CitablePaper | null {
  const y = year ? Number(year.slice(0, 4)) : null;
  const hits = papers.filter((p) => hasAuthor(p, surname) && (y === null || p.paper.year === y));
  return hits.length === 1 ? hits[0] : null;
}

/** A citation key's surname and year (`smith2099quantum` → smith, 2099; `lee_2020` → lee, 2020). */
function keyParts(key: string): { surname: string; year: string } | null {
  const m = /^([\p{L}'-]+?)[-_:]?((?:1[89]|20|21)\d{2})/u.exec(key.trim());
  return m ? { surname: m[1], year: m[2] } : null;
}

function resolveKeys(keys: readonly string[], papers: readonly CitablePaper[]): string[] | null {
  const ids: string[] = [];
  for (const k of keys) {
    const parts = keyParts(k);
    const p = parts && resolveAuthorYear(papers, parts.surname, parts.year);
    if (!p) return null;
    ids.push(p.shortId);
  }
  return ids;
}

const ids = (list: readonly string[]) => list.map((id) => `[${id}]`).join('');

/** Finds and resolves every citation form but our own [P<n>] in one sentence. */
export function resolveForeignCitations(sentence: string, papers: readonly CitablePaper[]): ForeignCitations {
  const resolved: ForeignCitations['resolved'] = [];
  const unresolved: string[] = [];
  const settle = (form: string, shortIds: string[] | null, keep = '') => {
    if (shortIds?.length) {
      for (const id of shortIds) resolved.push({ form: form.trim(), shortId: id });
      return `${keep}${keep ? ' ' : ' '}${ids(shortIds)}`;
    }
    unresolved.push(form.trim());
    return keep ? ` ${keep}` : '';
  };
  let t = sentence;
  t = t.replace(LATEX_CITE, (m, keys: string) => settle(m, resolveKeys(keys.split(','), papers)));
  t = t.replace(PANDOC, (m, inner: string) => settle(m, resolveKeys(pandocKeys(inner), papers)));
  t = t.replace(NARRATIVE, (m, authors: string, year: string) => {
    const surname = new RegExp(SURNAME, 'u').exec(authors)![0];
    const p = resolveAuthorYear(papers, surname, year);
    // A resolved narrative citation keeps its names ("Hopper [P2] showed…"); an unresolved one loses them.
    return p ? settle(m, [p.shortId], authors).trimStart() : settle(m, null).trimStart();
  });
  t = t.replace(PARENTHETICAL, (m, inner: string) => {
    const list = authorYearList(inner);
    const found = list.map((x) => resolveAuthorYear(papers, x.surname, x.year));
    return settle(m, list.length && found.every(Boolean) ? found.map((p) => p!.shortId) : null);
  });
  t = t.replace(PLAIN_KEY, (m, inner: string) => settle(m, resolveKeys(inner.split(/[,;]/), papers)));
  t = t.replace(NUMERIC, (m) => settle(m, null));
  // "Smith et al." with no year left: the name must be a section paper's author, else the sentence rests on it.
  for (const m of t.matchAll(ET_AL)) {
    const p = resolveAuthorYear(papers, m[1], null);
    if (!p) unresolved.push(m[0]);
    else if (!t.includes(`[${p.shortId}]`)) {
      resolved.push({ form: m[0], shortId: p.shortId });
      t = t.replace(m[0], `${m[0]} [${p.shortId}]`);
    }
  }
  t = t
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .trim();
  return { text: t, resolved, unresolved };
}
