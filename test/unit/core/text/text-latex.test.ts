import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextModel } from '../../../../src/core/text/index.ts';
import { cleanSentences, sentenceAtProbe } from '../../../support/text.ts';

const at = (doc: string, probe: string, shift = 1) => sentenceAtProbe(doc, 'latex', probe, shift);
const body = (s: string) => `\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n${s}\n\\end{document}\n`;

test('a sentence spanning lines, with its span slicing back to its source', () => {
  const doc = body('\\section{Method}\nWe train the model\non three datasets. Then we test it.');
  const s = at(doc, 'three');
  assert.ok(s);
  assert.equal(s.text, 'We train the model\non three datasets.');
  assert.equal(doc.slice(s.start, s.end), s.text);
  assert.equal(s.clean, 'We train the model on three datasets.');
  assert.equal(s.section, 'Method');
  assert.equal(at(doc, 'Then')?.clean, 'Then we test it.');
});

test('citations and labels never end a sentence and vanish from the clean text; a reference leaves [ref]', () => {
  const doc = body('As shown by Smith~\\cite[p.~3]{smith2020,doe2019} and in Fig.~\\ref{fig:a}, the loss\\label{eq:x} falls. It rises.');
  const s = at(doc, 'doe2019');
  assert.ok(s, 'the cursor inside a \\cite key is in the sentence');
  assert.match(s.text, /^As shown by Smith.*falls\.$/s);
  assert.equal(s.clean, 'As shown by Smith and in Fig. [ref], the loss falls.');
  assert.doesNotMatch(s.clean, /smith2020|fig:a|eq:x|\\/);
});

test('a reference at the end of a sentence or in parentheses reads "Fig. [ref]." and "(see Sec. [ref])", never "Fig.." or "(see Sec.)"', () => {
  const doc = body(
    'We retrieve single sentences, as in Fig.~\\ref{fig:ui}. Participants wrote faster (see Sec.~\\ref{sec:intro}). By \\eqref{eq:loss} and \\cref{tab:x} it holds.',
  );
  assert.deepEqual(cleanSentences(doc, 'latex'), [
    'We retrieve single sentences, as in Fig. [ref].',
    'Participants wrote faster (see Sec. [ref]).',
    'By [ref] and [ref] it holds.',
  ]);
});

test('a citation right after the period belongs to the sentence it closes', () => {
  const doc = body('This is known.\\cite{knuth1984} Next we go.');
  const s = at(doc, 'knuth');
  assert.equal(s?.text, 'This is known.\\cite{knuth1984}');
  assert.equal(s?.clean, 'This is known.');
  assert.equal(at(doc, 'Next')?.clean, 'Next we go.');
});

test('a narrative citation opening a sentence does not glue it to the previous one', () => {
  const doc = body('Models overfit. \\citet{smith2020} show that dropout helps.');
  assert.deepEqual(cleanSentences(doc, 'latex'), ['Models overfit.', '[cite] show that dropout helps.']);
});

test('a textual citation leaves a placeholder where its authors are printed, not a dangling phrase', () => {
  const doc = body(
    'As shown by \\citet{smith2019sparse}, sparse retrieval helps. \\textcite[p.~3]{lee2020} agree with \\citeauthor{park2021}. It is known~\\citep{x}.',
  );
  assert.deepEqual(cleanSentences(doc, 'latex'), [
    'As shown by [cite], sparse retrieval helps.',
    '[cite] agree with [cite].',
    'It is known.',
  ]);
});

test('abbreviations, initials, decimals and versions do not end a sentence', () => {
  const cases = [
    'Many methods, e.g. dropout, i.e. noise, help.',
    'Smith et al. proposed it in 2020.',
    'See Fig. 3 and Eq. 2 for details.',
    'Results are in Sec. 4.1 and Tab. 2.',
    'We compare ours vs. theirs, cf. prior work.',
    'It takes approx. 3.5 hours on Python 3.10.2 with v1.2.3 of the code.',
    'The work of J. R. R. Tolkien is long.',
    'As in Figs. 2 and 3 and Eqs. 4 and 5 and Sect. 3, it holds.',
  ];
  for (const c of cases) assert.deepEqual(cleanSentences(body(c + ' Next one.'), 'latex'), [c, 'Next one.'], c);
});

test('a blank line ends a sentence even without a period', () => {
  assert.deepEqual(cleanSentences(body('First paragraph without a period\n\nSecond paragraph.'), 'latex'), [
    'First paragraph without a period',
    'Second paragraph.',
  ]);
});

test('inline math stays in its sentence even when it holds a period', () => {
  const doc = body('We set $\\alpha = 0.5. x$ and \\(y = 1.\\) for all runs. Then we stop.');
  const s = at(doc, 'alpha');
  assert.ok(s);
  assert.match(s.text, /^We set .* for all runs\.$/);
  assert.equal(s.clean, 'We set α = 0.5. x and y = 1. for all runs.');
});

test('\\emph, \\textbf and friends keep their text; ~ is a space; accents and quotes are resolved', () => {
  const doc = body("The \\emph{key} idea of \\textbf{B\\'{e}zier} curves is ``smooth'' interpolation~in \\texttt{scipy.interpolate}.");
  assert.equal(at(doc, 'key')?.clean, 'The key idea of Bézier curves is “smooth” interpolation in scipy.interpolate.');
});

test('\\item bodies, captions and footnotes are units of their own', () => {
  const doc = body(
    [
      'We list them.\\footnote{A note here. And more.} Then continue.',
      '\\begin{itemize}',
      '  \\item First point',
      '  \\item[(b)] Second point. With two sentences.',
      '\\end{itemize}',
      '\\begin{figure}[t]',
      '  \\centering\\includegraphics[width=\\linewidth]{plot.pdf}',
      '  \\caption{Loss over time. Lower is better.}\\label{fig:loss}',
      '\\end{figure}',
    ].join('\n'),
  );
  assert.deepEqual(cleanSentences(doc, 'latex'), [
    'We list them.',
    'A note here.',
    'And more.',
    'Then continue.',
    'First point',
    'Second point.',
    'With two sentences.',
    'Loss over time.',
    'Lower is better.',
  ]);
  assert.equal(at(doc, 'A note')?.clean, 'A note here.');
  assert.equal(at(doc, 'Then continue')?.clean, 'Then continue.');
  assert.equal(at(doc, 'First point')?.clean, 'First point');
  assert.equal(at(doc, 'Lower is')?.clean, 'Lower is better.');
  assert.equal(at(doc, 'includegraphics'), null, 'a figure body outside its caption is not prose');
  assert.equal(at(doc, 'fig:loss'), null);
});

test('comments are not prose, and % starts one only when unescaped', () => {
  const doc = body('We gain 5\\% accuracy. % a remark. Not prose.\nStill the same paragraph.\n% whole line. Comment.\nLast one.');
  assert.equal(at(doc, 'a remark'), null);
  assert.equal(at(doc, 'whole line'), null);
  assert.equal(at(doc, 'We gain')?.clean, 'We gain 5% accuracy.');
  assert.deepEqual(cleanSentences(doc, 'latex'), ['We gain 5% accuracy.', 'Still the same paragraph.', 'Last one.']);
});

test('the preamble, display math, headings and verbatim are not prose', () => {
  const doc =
    '\\documentclass{article}\n\\newcommand{\\foo}{Some text. Here.}\n\\begin{document}\n' +
    '\\section*{Results and Discussion}\\label{sec:res}\nWe report:\n' +
    '\\begin{equation}\n  E = mc^2. \\label{eq:e}\n\\end{equation}\n' +
    '\\[ a = b. \\]\n$$ c = d. $$\nwhich holds.\n' +
    '\\begin{verbatim}\nprint("x. y")\n\\end{verbatim}\n' +
    '\\begin{lstlisting}\n% not a comment. code.\n\\end{lstlisting}\n\\end{document}\nAfter the end.';
  for (const probe of ['Some text', 'Results and', 'sec:res', 'mc^2', 'a = b', 'c = d', 'print', 'not a comment', 'After the end']) {
    assert.equal(at(doc, probe), null, probe);
  }
  assert.equal(at(doc, 'We report')?.clean, 'We report:');
  assert.equal(at(doc, 'which holds')?.section, 'Results and Discussion');
  assert.deepEqual(cleanSentences(doc, 'latex'), ['We report:', 'which holds.']);
});

test('the abstract is prose, even in the preamble, and its section is "Abstract"', () => {
  const doc =
    '\\documentclass{article}\n\\title{On \\emph{Things}}\n\\begin{abstract}\nWe study things. They matter.\n\\end{abstract}\n\\begin{document}\n\\maketitle\n\\section{Introduction}\nHello world.\n\\end{document}';
  const model = new TextModel(doc, 'latex');
  assert.equal(model.title(), 'On Things');
  assert.deepEqual(
    model.sentences().map((s) => [s.clean, s.section]),
    [
      ['We study things.', 'Abstract'],
      ['They matter.', 'Abstract'],
      ['Hello world.', 'Introduction'],
    ],
  );
});

test('the section is the nearest preceding heading at any level, starred or not, with a short title', () => {
  const doc = body('\\section[Short]{A \\emph{Long} Title}\nOne.\n\\subsection*{Details}\nTwo.\n\\paragraph{Run-in.} Three is here.');
  assert.equal(at(doc, 'One')?.section, 'A Long Title');
  assert.equal(at(doc, 'Two')?.section, 'Details');
  assert.equal(at(doc, 'Three')?.section, 'Run-in.');
  assert.equal(at(doc, 'Three')?.clean, 'Three is here.');
});

test('a file without \\begin{document} (an \\input part) is all body', () => {
  const doc = '\\subsection*{Part}\nThis file is included. It has prose.';
  assert.deepEqual(cleanSentences(doc, 'latex'), ['This file is included.', 'It has prose.']);
  assert.equal(at(doc, 'It has')?.section, 'Part');
});

test('CRLF line ends are handled like LF', () => {
  const doc = body('\\section{A}\r\nWe go\r\non here.\r\n\r\nNew paragraph.').replace(/\n/g, '\r\n').replace(/\r\r/g, '\r');
  const s = at(doc, 'on here');
  assert.equal(s?.clean, 'We go on here.');
  assert.equal(doc.slice(s!.start, s!.end), s!.text);
});

test('an offset outside the document is refused', () => {
  assert.throws(() => new TextModel('abc', 'latex').sentenceAt(4), RangeError);
  assert.throws(() => new TextModel('abc', 'latex').sentenceAt(-1), RangeError);
});

test('\\bibliography, \\printbibliography, \\appendix, \\maketitle and \\input are not prose and end the sentence above them', () => {
  const doc = body(
    '\\maketitle\nWe study corpora\n\\input{sections/method}\nThen we rank\n\\appendix\nExtra text\n\\bibliographystyle{plain}\n\\bibliography{refs}',
  );
  assert.deepEqual(cleanSentences(doc, 'latex'), ['We study corpora', 'Then we rank', 'Extra text']);
  assert.equal(at(doc, 'bibliography{refs}', 2), null);
});
