// The real SciPy 1.0 paper (../shared/eval/latex/scipy-1.0-paper): a main file with \input parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextModel } from '../../../../src/core/text/index.ts';
import { evalPath } from '../../../support/eval.ts';

const dir = evalPath('latex', 'scipy-1.0-paper');
const CITE = /\\(?:cite[a-zA-Z]*|[a-zA-Z]*cite)\*?(?:\[[^\]]*\])*\{([^}]*)\}/g;

test(
  'every sentence of the SciPy paper slices back to its text and has no command or citation key',
  { skip: !dir && 'shared/eval absent' },
  () => {
    const files = readdirSync(dir!).filter((f) => f.endsWith('.tex'));
    const sources = files.map((f) => readFileSync(join(dir!, f), 'utf8'));
    // Keys that are also words of the prose (FITPACK, pytest) cannot be told apart and are not checked.
    const withoutCites = sources.map((s) => s.replace(CITE, '')).join('\n');
    const keys = new Set(sources.flatMap((s) => [...s.matchAll(CITE)].flatMap((m) => m[1].split(',').map((k) => k.trim()))));
    const checked = [...keys].filter((k) => k && !withoutCites.includes(k));
    assert.ok(checked.length > 100, `expected the paper's ~130 citation keys, found ${checked.length}`);

    let total = 0;
    for (const [i, file] of files.entries()) {
      const text = sources[i];
      for (const s of new TextModel(text, 'latex').sentences()) {
        total++;
        assert.equal(text.slice(s.start, s.end), s.text, `${file}: span`);
        assert.doesNotMatch(s.clean, /\\[a-zA-Z]/, `${file}: command left in ${JSON.stringify(s.clean)}`);
        for (const k of checked) assert.ok(!s.clean.includes(k), `${file}: key ${k} left in ${JSON.stringify(s.clean)}`);
        assert.ok(s.clean.length > 0 && s.clean === s.clean.trim());
      }
    }
    assert.ok(total > 300, `only ${total} sentences`);
  },
);

test(
  'the SciPy paper: abstract, sections in order, and lookups at every sentence agree with the full list',
  { skip: !dir && 'shared/eval absent' },
  () => {
    const text = readFileSync(join(dir!, 'paper.tex'), 'utf8');
    const model = new TextModel(text, 'latex');
    const all = model.sentences();
    assert.equal(model.title(), 'SciPy 1.0—Fundamental Algorithms for Scientific Computing in Python');
    assert.equal(all[0].section, 'Abstract');
    assert.equal(all[0].clean, 'SciPy is an open source scientific computing library for the Python programming language.');
    const sections = [...new Set(all.map((s) => s.section))];
    assert.deepEqual(sections.slice(0, 6), ['Abstract', 'Introduction', 'Background', 'SciPy Begins', 'SciPy Matures', 'SciPy Today']);
    for (const s of all) {
      for (const offset of [s.start, s.end]) {
        assert.deepEqual(model.sentenceAt(offset), s, `lookup at ${offset} (${JSON.stringify(s.clean.slice(0, 40))})`);
      }
    }
    // The verbatim announcement in a figure is not prose, its caption is.
    assert.equal(model.sentenceAt(text.indexOf('begin{verbatim}') + 20), null);
    const caption = model.sentenceAt(text.indexOf('Excerpt from the SciPy 0.1') + 3);
    assert.match(caption?.clean ?? '', /^Excerpt from the SciPy 0\.1 release announcement/);
  },
);
