import { TextModel, type Format, type Sentence } from '../../src/core/text/index.ts';

/** The sentence at the first occurrence of `probe` (cursor `shift` characters into it). */
export function sentenceAtProbe(doc: string, format: Format, probe: string, shift = 1): Sentence | null {
  const at = doc.indexOf(probe);
  if (at < 0) throw new Error(`probe ${JSON.stringify(probe)} not in the document`);
  return new TextModel(doc, format).sentenceAt(at + shift);
}

/** Clean texts of all sentences. */
export function cleanSentences(doc: string, format: Format): string[] {
  return new TextModel(doc, format).sentences().map((s) => s.clean);
}
