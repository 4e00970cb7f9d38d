/**
 * A query-side filter of citation debris: what a sentence copied from a paper carries besides its claim —
 * author names before `et al.`, author–year parentheticals, numeric citations (`[12]`, `[3–5]`, `^{12}`), figure and
 * table pointers (`(Fig. 2b)`, `Table 3`) and citation placeholders left empty by a citation manager. None of it
 * names the cited work's content, and author names match the wrong papers' text.
 */

const RULES: ReadonlyArray<RegExp> = [
  // Placeholder tokens of the Citation-Integrity set and of citation managers: `[<|cit|>]`, `<|multi_cit|>`.
  /\[?<\|[a-z_]+\|>\]?/g,
  // LaTeX citation commands with their keys.
  /~?\\(?:[a-zA-Z]*cite[a-zA-Z]*|ref|cref|Cref|eqref|autoref)\*?(?:\[[^\]]*\])*\{[^}]*\}/g,
  // Pandoc citations: `[@smith2020; @doe2019, p. 4]`, `@smith2020`.
  /\[[^\]]*@[\w:.-]+[^\]]*\]/g,
  /(?<![\w.])@[\w:-]+/g,
  // `Smith et al.`, `Smith and Jones (2019)`, `Smith et al., 2010`: the names, the `et al.` and the year.
  /\b\p{Lu}[\p{L}'’-]+(?:\s+(?:and|&)\s+\p{Lu}[\p{L}'’-]+)?\s+et\s+al\.?,?(?:\s*\(?\d{4}[a-z]?\)?)?/gu,
  /\bet\s+al\.?,?/g,
  // Author–year parentheticals: `(Smith, 2020)`, `(Smith & Lee, 2019; Chen, 2021a, p. 5)`.
  /\((?:[^()]*?,\s*)?(?:19|20)\d{2}[a-z]?(?:[,;][^()]*)?\)/g,
  // Numeric citations: `[12]`, `[3, 5–7]`, `(12, 14)`, superscripts.
  /\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\]/g,
  /\(\s*\d+(?:\s*[,–-]\s*\d+)*\s*\)/g,
  /\^\{?\d+(?:[,–-]\d+)*\}?/g,
  /[¹²³⁴⁵⁶⁷⁸⁹⁰]+/g,
  // Pointers into the citing paper: `(Fig. 2b)`, `(Figure S3)`, `Table 1`, `refs`.
  /\(?\b(?:(?:Supplementary|Suppl\.|Extended\s+Data)\s+)?(?:Figs?|Figures?|Tables?|Eqs?|Equations?|refs?|Ref)\b\.?\s*[A-Z]?\d*[a-z]?(?:\s*[,–-]\s*[A-Z]?\d+[a-z]?)*\)?/g,
];

/** The query text without citation debris, white space collapsed; the text itself when nothing would remain. */
export function stripCitationDebris(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule, ' ');
  out = out
    .replace(/\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]/g, ' ')
    .replace(/\s+([,.;:])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : text.trim();
}
