// In-text citations as papers print them: numeric (`[12]`, `[3, 5–7]`), author-year (`(Smith et al., 2019; Lee
// 2020a)`, `Smith and Lee (2019)`), LaTeX `\cite{key}` and Pandoc `[@key]`. The patterns are shared with grounding's
// check of generated sentences (grounding/citations.ts); parseInTextCitations lists what one corpus sentence cites, so
// that a quote's own citations can be resolved through its paper's reference list (ingest/references.ts).

export const SURNAME = String.raw`(?:(?:van|von|de|da|del|der|le|la|di)\s+)?\p{Lu}[\p{L}'’-]+`;
export const AUTHORS = String.raw`${SURNAME}(?:\s+et\s+al\.?|\s+(?:and|&)\s+${SURNAME})?`;
export const YEAR = String.raw`(?:1[89]|20|21)\d{2}[a-z]?`;

/** `Smith et al. (2020)`, `Smith and Lee [2020]`, `Smith (2020a)`. */
export const NARRATIVE = new RegExp(String.raw`(${AUTHORS})\s*[(\[]\s*(${YEAR})\s*[)\]]`, 'gu');
/** `(Smith et al., 2020; Lee 2021)`, `[see Smith 2020]`. */
export const PARENTHETICAL = new RegExp(
  String.raw`\s*[(\[]\s*(?:see\s+|e\.g\.,?\s+|cf\.\s+)?((?:${AUTHORS}),?\s+${YEAR}(?:\s*[;,]\s*(?:${AUTHORS}),?\s+${YEAR})*)\s*[)\]]`,
  'gu',
);
export const LATEX_CITE = /\s*~?\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}/g;
export const PANDOC = /\s*\[([^\]]*@[^\]]*)\]/g;
export const NUMERIC = /\s*\[\s*\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*\s*\]/g;

/** "Smith et al., 2020; Lee and Park 2021" → [[Smith, 2020], [Lee, 2021]] (first surname of each). */
export function authorYearList(s: string): { surname: string; year: string }[] {
  return s.split(';').flatMap((part) => {
    const m = new RegExp(String.raw`^\s*(${SURNAME})`, 'u').exec(part);
    const y = new RegExp(YEAR).exec(part);
    return m && y ? [{ surname: m[1], year: y[0] }] : [];
  });
}

/** The keys of a Pandoc citation's inside (`see @smith2019, p. 3; @lee2020`). */
export function pandocKeys(inner: string): string[] {
  return [...inner.matchAll(/@([\p{L}\p{N}_][\p{L}\p{N}_:.#$%&+?<>~/-]*)/gu)].map((x) => x[1].replace(/[.:]+$/, ''));
}

/** One citation printed in a sentence: keys (LaTeX, Pandoc), reference numbers, or a first author's surname and year. */
export type InTextCitation =
  | { kind: 'key'; form: string; keys: string[] }
  | { kind: 'numeric'; form: string; numbers: number[] }
  | { kind: 'author-year'; form: string; surname: string; year: string };

/** A range wider than this (`[1-999]`) is not a citation list. */
const MAX_RANGE = 50;

function numbersOf(form: string): number[] {
  const out: number[] = [];
  for (const part of form.replace(/[[\]\s]/g, '').split(/[,;]/)) {
    const r = /^(\d+)[-–](\d+)$/.exec(part);
    if (r) {
      const [a, b] = [Number(r[1]), Number(r[2])];
      if (b >= a && b - a <= MAX_RANGE) for (let n = a; n <= b; n++) out.push(n);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
  }
  return [...new Set(out)];
}

/** Every citation a sentence prints (or its LaTeX/Markdown source holds), in order of appearance, each once. */
export function parseInTextCitations(text: string): InTextCitation[] {
  const found: { at: number; c: InTextCitation }[] = [];
  const taken: [number, number][] = [];
  const free = (a: number, b: number) => taken.every(([x, y]) => b <= x || a >= y);
  const add = (re: RegExp, make: (m: RegExpMatchArray) => InTextCitation[]) => {
    for (const m of text.matchAll(re)) {
      const a = m.index!;
      const b = a + m[0].length;
      if (!free(a, b)) continue;
      const cs = make(m);
      if (!cs.length) continue;
      taken.push([a, b]);
      for (const c of cs) found.push({ at: a, c });
    }
  };
  add(LATEX_CITE, (m) => {
    const keys = m[1]
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    return keys.length ? [{ kind: 'key', form: m[0].trim(), keys }] : [];
  });
  add(PANDOC, (m) => {
    const keys = pandocKeys(m[1]);
    return keys.length ? [{ kind: 'key', form: m[0].trim(), keys }] : [];
  });
  add(NUMERIC, (m) => {
    const numbers = numbersOf(m[0]);
    return numbers.length ? [{ kind: 'numeric', form: m[0].trim(), numbers }] : [];
  });
  add(PARENTHETICAL, (m) =>
    authorYearList(m[1]).map((x) => ({ kind: 'author-year', form: m[0].trim(), surname: x.surname, year: x.year })),
  );
  add(NARRATIVE, (m) => {
    const surname = new RegExp(SURNAME, 'u').exec(m[1])![0];
    return [{ kind: 'author-year', form: m[0].trim(), surname, year: m[2] }];
  });
  return found.sort((a, b) => a.at - b.at).map((x) => x.c);
}
