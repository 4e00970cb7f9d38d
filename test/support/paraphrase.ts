// A sentence, its paraphrase (one shared word), a word-overlap decoy (three shared words, another meaning) and an
// unrelated sentence: what tells an embedder with meaning from a word matcher. Shared by the neural tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SENTENCE = 'mice were fed a high-fat diet';
export const PARAPHRASE = 'rodents received a fatty diet';
export const DECOY = 'computer mice were fed through a high-speed sorting machine';
export const UNRELATED = 'we report the orbital period of the exoplanet';
/** The corpus sentence a paraphrase query must find first (diet.md), ahead of the decoy's (lab.md). */
export const CORPUS_SENTENCE = 'Mice were fed a high-fat diet for twelve weeks.';

export const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);

/** Writes diet.md (the sentence), lab.md (the decoy) and, with `unrelated`, sky.md into `folder`. */
export function writeParaphraseCorpus(folder: string, { unrelated = false } = {}): void {
  writeFileSync(
    join(folder, 'diet.md'),
    `---\ntitle: "Diet and Weight"\n---\n\n## Methods\n\n${CORPUS_SENTENCE} Body weight was recorded weekly.\n`,
  );
  writeFileSync(
    join(folder, 'lab.md'),
    `---\ntitle: "Sorting Hardware"\n---\n\n## Setup\n\nComputer mice were fed through a high-speed sorting machine. The machine rejected faulty units.\n`,
  );
  if (unrelated)
    writeFileSync(
      join(folder, 'sky.md'),
      `---\ntitle: "Exoplanets"\n---\n\n## Results\n\nWe report the orbital period of the exoplanet. The transit lasted three hours.\n`,
    );
}
