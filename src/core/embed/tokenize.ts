/**
 * Tokenisation shared by the offline embedder and the retrieval evaluation's BM25 baseline: lowercase,
 * diacritics folded, alphanumeric runs (so "SARS-CoV-2" → sars, cov, 2), English stop words, and a light,
 * deterministic suffix stemmer (plural/-ing/-ed/-ly folding; no dictionary).
 */
import { isStopWord } from '../text/stop-words.js';

const CITATION_TOKEN = /\[?<\|[a-z_]+\|>\]?/g;

/** Removes citation placeholders such as `[<|cit|>]`, `<|multi_cit|>` from an eval claim. */
export function stripCitationTokens(text: string): string {
  return text.replace(CITATION_TOKEN, ' ').replace(/\s+/g, ' ').trim();
}

const COMBINING = /[\u0300-\u036f]/g;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercased, diacritic-folded alphanumeric tokens (stop words kept). */
export function rawTokens(text: string): string[] {
  const folded = text.normalize('NFKD').replace(COMBINING, '').toLowerCase();
  return folded.match(WORD) ?? [];
}

/**
 * A light stemmer: folds common inflections so "cells"/"cell", "infected"/"infection"/"infecting" meet.
 * Deliberately conservative: words of ≤ 3 letters and tokens containing digits are left alone.
 */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('ss') || s.endsWith('us') || s.endsWith('is')) {
    /* keep: class, virus, analysis */
  } else if (s.endsWith('s') && s.length > 3) s = s.slice(0, -1);
  if (s.length > 5) {
    for (const suf of ['ations', 'ation', 'ingly', 'ing', 'edly', 'ed', 'ly', 'ions', 'ion', 'ment', 'ness', 'ity']) {
      if (s.endsWith(suf) && s.length - suf.length >= 4) {
        s = s.slice(0, -suf.length);
        break;
      }
    }
  }
  if (s.length > 4 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}

/** Content tokens: raw tokens minus stop words, stemmed. */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const t of rawTokens(text)) if (!isStopWord(t)) out.push(stem(t));
  return out;
}
