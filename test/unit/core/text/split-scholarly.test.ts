// Sentence boundaries in scholarly prose, by category (issue 14). Every sentence here was written for this
// file; none is taken from an evaluation suite.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { splitSentences } from '../../../../src/core/text/split.ts';
import { sentenceAtProbe } from '../../../support/text.ts';
import { TextModel, type Format } from '../../../../src/core/text/index.ts';

const plain = (text: string): string[] => splitSentences(text).map((s) => text.slice(s.start, s.end));
const body = (s: string) => `\\documentclass{article}\n\\begin{document}\n${s}\n\\end{document}\n`;
const texts = (doc: string, format: Format): string[] => new TextModel(doc, format).sentences().map((s) => s.text);

/** Each case is its expected sentences; the text is them joined by one space. */
function category(name: string, cases: string[][]): void {
  test(`scholarly boundaries: ${name}`, () => {
    for (const expected of cases) assert.deepEqual(plain(expected.join(' ')), expected);
  });
}

category('et al. before a name, a venue or a year', [
  ['The estimator of Okafor et al. Nature 2019 was adopted here.'],
  ['We compare with the model of Ferreira et al. ICML 2021 on both tasks.'],
  ['As Lindqvist et al. 2018 showed, the trend reverses.', 'We confirm it.'],
  ['The protocol of Haddad et al. (2016) is followed.', 'It is strict.'],
  ['Our baseline follows Moreau et al. Bergström and Lind later refined it.'],
  ['This was proposed by Tanaka et al.', 'Their model is small.'],
  ['The same idea appears in Chen et al.', 'However, they train longer.'],
  ['The effect was first reported by Duarte et al.', 'Results from later cohorts agree.'],
]);

category('ibid., op. cit., loc. cit.', [
  ['The same table is reproduced ibid. on the facing page.'],
  ['See Hartmann, op. cit. Chapter 4, for the full argument.'],
  ['The claim is repeated ibid. Section 3 and again in the epilogue.'],
  ['As argued in Weber, op. cit. Part II, the state is central.'],
  ['The phrase occurs in Mills, loc. cit. Vol. 2 of the letters.'],
  ['The point is made ibid. p. 41 in passing.'],
  ['Ibid. Chapter 7 returns to it.'],
  ['Op. cit. Appendix B lists the sources.'],
  ['The thesis is restated ibid.', 'It is not defended there.'],
  ['This was noted by Weber, op. cit.', 'Marx makes a similar point.'],
  ['The letters were edited later.', 'Ibid.', 'The editor is unknown.'],
]);

category('cf. and viz.', [
  ['The loss is bounded (cf. Lemma 2).', 'Hence training is stable.'],
  ['Results differ, cf. Table 3 and Appendix B.', 'We discuss why.'],
  ['Cf. Section 4 for the proof.', 'It is short.'],
  ['Two solvents were used, viz. Water and ethanol, both distilled.'],
  ['Two regimes appear, viz. the lean one and the rich one.', 'Both are stable.'],
]);

category('numbered references', [
  ['As seen in Fig. 5c the curve saturates.', 'Beyond that it falls.'],
  ['The gradient in Eq. (3) vanishes at the optimum.', 'Then we stop.'],
  ['Details follow in Sec. 2.1 of the appendix.', 'Read them first.'],
  ['The quotation is on p. 23 of the report.', 'It is short.'],
  ['This is covered on pp. 4–7 and in Ch. 2.', 'Read both.'],
  ['The proof is in Ch. 2.', 'It is long.'],
  ['Issue No. 5 of Vol. 3 covers it.', 'It was cited twice.'],
  ['See Figs. 2a and 2b for both runs.', 'They agree.'],
  ['The identity follows from Eqs. (4)–(6).', 'We omit it.'],
  ['The series appeared in Proc. Natl. Acad. Sci. 112, 1–6 (2015).', 'It was cited widely.'],
  ['The assay is described in J. Biol. Chem. 278 (2003).', 'We reuse it.'],
  ['See Sec. II.', 'There we define the model.'],
]);

category('decimals and scientific notation', [
  ['The rate was 3.2e-4 per second.', 'It fell to 1.5 × 10^-5 later.'],
  ['We measured 0.05 mM of the salt.', 'That is .05 mM.'],
  ['The constant is 6.022E+23 per mole.', 'It is exact by definition.'],
  ['Yields rose from 12.5 to 13.75 percent.', 'Costs fell by 2.1 percent.'],
  ['The mean was 4.7 ± 0.3 mg.', 'The median was 4.5 mg.'],
  ['The model has 1.3B parameters.', 'It fits on one GPU.'],
  ['The final loss was 0.42.', 'Validation loss was 0.47.'],
]);

category('lower-case initialisms of methods and statistics end a sentence before a capital', [
  ['Values are given as mean ± s.e.m.', 'Significance was set at 5%.'],
  ['The tracer was injected i.v.', 'Mice recovered within an hour.'],
  ['Each rat received 2 mg/kg i.p.', 'Controls got saline.'],
  ['The U.S. Army funded the trial.', 'It ran for two years.'],
  ['Differences were n.s. in all groups.', 'We pooled them.'],
]);

category('citation styles in running text', [
  ['The effect is large (Smith, 2020, p. 5).', 'It replicates.'],
  ['This holds broadly (Ng & Park, 2019; Li, 2021).', 'We test it again.'],
  ['As shown previously (Chen et al., 2018, pp. 4–9).', 'We agree.'],
  ['Prior work agrees [12].', 'We extend it.'],
  ['Prior work agrees [12, 14].', 'We extend it.'],
  ['Prior work agrees [3–5].', 'We extend it.'],
  ['Prior work agrees.[12]', 'We extend it.'],
  ['The dose was lowered.¹² No relapse followed.'].flatMap((s) => s.split(/(?<=¹²) /)),
]);

test('LaTeX: et al. before a citation does not end the sentence (the cursor sees the whole sentence)', () => {
  const doc = body('As Smith et al.~\\cite{smith2020} the effect is robust across sites. We agree.');
  const s = sentenceAtProbe(doc, 'latex', 'robust');
  assert.equal(s?.text, 'As Smith et al.~\\cite{smith2020} the effect is robust across sites.');
  assert.equal(s?.clean, 'As Smith et al. the effect is robust across sites.');
  assert.deepEqual(texts(body('Following Ruiz et al. \\citep{ruiz21}, we fix the seed. It helps.'), 'latex'), [
    'Following Ruiz et al. \\citep{ruiz21}, we fix the seed.',
    'It helps.',
  ]);
  assert.deepEqual(texts(body('The bound is tight (cf.~\\cite{x}) here. It helps.'), 'latex'), [
    'The bound is tight (cf.~\\cite{x}) here.',
    'It helps.',
  ]);
});

test('LaTeX: a sentence that ends inside inline math is split after the math', () => {
  const doc = body('The loss is $\\mathcal{L} = -\\log p.$ We minimise it with Adam.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'mathcal')?.text, 'The loss is $\\mathcal{L} = -\\log p.$');
  assert.equal(sentenceAtProbe(doc, 'latex', 'mathcal')?.clean, 'The loss is L = -log p.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'minimise')?.text, 'We minimise it with Adam.');
  assert.deepEqual(texts(body('We set $\\alpha = 0.1.$ Training converges. Here \\(p < 0.05.\\) It is small.'), 'latex'), [
    'We set $\\alpha = 0.1.$',
    'Training converges.',
    'Here \\(p < 0.05.\\)',
    'It is small.',
  ]);
  // A period inside the formula that does not close it ends nothing; neither does math before a lower-case word.
  assert.deepEqual(texts(body('The value $v = 3.5$ is small. The set $\\{x.\\}$ is empty.'), 'latex'), [
    'The value $v = 3.5$ is small.',
    'The set $\\{x.\\}$ is empty.',
  ]);
  assert.deepEqual(texts(body('For $n = 2.$ and more it holds.'), 'latex'), ['For $n = 2.$ and more it holds.']);
});

test('Markdown: a sentence that ends inside inline math is split after the math', () => {
  assert.deepEqual(texts('The loss is $\\mathcal{L} = -\\log p.$ We minimise it.\n', 'markdown'), [
    'The loss is $\\mathcal{L} = -\\log p.$',
    'We minimise it.',
  ]);
});

test('LaTeX: superscript citation marks after the period stay with their sentence', () => {
  assert.deepEqual(texts(body('The effect is robust.$^{12}$ It was replicated.$^{3,4}$ Twice.'), 'latex'), [
    'The effect is robust.$^{12}$',
    'It was replicated.$^{3,4}$',
    'Twice.',
  ]);
  assert.deepEqual(texts(body('The effect is robust\\textsuperscript{12}. It was replicated.'), 'latex'), [
    'The effect is robust\\textsuperscript{12}.',
    'It was replicated.',
  ]);
  // A real formula that is a superscript stays text.
  assert.equal(sentenceAtProbe(body('We square it, $^{2}x$ here. Done.'), 'latex', 'square')?.text, 'We square it, $^{2}x$ here.');
});

test('LaTeX: a sentence ending right after a footnote', () => {
  const doc = body('The data are public\\footnote{See the archive. It is free.}. We used all of them.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'data')?.text, 'The data are public\\footnote{See the archive. It is free.}.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'data')?.clean, 'The data are public.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'used')?.text, 'We used all of them.');
  assert.equal(sentenceAtProbe(doc, 'latex', 'archive')?.text, 'See the archive.');
  const after = body('We keep the defaults.\\footnote{Learning rate 0.1.} Results follow.');
  assert.equal(sentenceAtProbe(after, 'latex', 'defaults')?.clean, 'We keep the defaults.');
  assert.equal(sentenceAtProbe(after, 'latex', 'Results')?.text, 'Results follow.');
  assert.equal(sentenceAtProbe(after, 'latex', 'Learning')?.text, 'Learning rate 0.1.');
});
