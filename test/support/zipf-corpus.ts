// A corpus whose words follow Zipf's law (a few in over 2 % of the sentences, most rare), with hashed vectors: the
// keyword ranking's rules (candidate budget, common terms, both stages) all act on it, and its vectors are near where
// the texts share words. The in-memory keyword index and hybrid ranking are checked against their SQL on it.
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM } from './db-contract.js';
import { hashEmbed } from './db-embedder.js';

/** 600 words, drawn with Zipf's law. */
export const WORDS = Array.from({ length: 600 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}x`);

export function zipfWord(u: () => number): string {
  return WORDS[Math.min(WORDS.length - 1, Math.floor(Math.exp(u() * Math.log(WORDS.length + 1)) - 1))];
}

export const sentence = (u: () => number) => Array.from({ length: 6 + Math.floor(u() * 10) }, () => zipfWord(u)).join(' ') + '.';

/**
 * `count` papers × 5 sections × 6 sentences (120: 3,600), section titles from the same words. `embed`: the sentences'
 * vectors (hashEmbed's word counts unless given).
 */
export function papers(
  u: () => number,
  prefix = 'p',
  count = 120,
  embed: (text: string) => Float32Array = (text) => hashEmbed(text, DIM),
): PaperInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    title: `Paper ${i}`,
    year: 2020,
    sentences: Array.from({ length: 30 }, (_, g) => {
      const text = sentence(u);
      const section = Math.floor(g / 6);
      return {
        sectionTitle: `${zipfWord(u)} ${zipfWord(u)}`,
        sectionIndex: section,
        sentenceIndex: g % 6,
        globalIndex: g,
        text,
        embedding: embed(text),
      };
    }),
  }));
}
