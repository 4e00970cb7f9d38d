// The escapers: corpus text in a hover (literal, wrappable between words), a Markdown table cell, LaTeX prose.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeLatex, escapeMarkdownCell, escapeMarkdownText } from '../../../../src/core/text/escape.ts';
import { compilePdf, noPdflatex, noPdftotext } from '../../../support/pdflatex.ts';

test('Markdown syntax in corpus text is escaped; words stay separated by plain spaces', () => {
  const out = escapeMarkdownText('See [click](command:workbench.action.terminal.new) and *this*   <b>x</b>\n& `code` $x$.');
  assert.ok(!out.includes('&nbsp;'));
  assert.ok(!/[^\\][[\]()*`<>]/.test(out.replace(/\\./g, '')), out);
  assert.equal(out.replace(/\\(.)/g, '$1'), 'See [click](command:workbench.action.terminal.new) and *this* <b>x</b> & `code` $x$.');
  assert.equal(out.split(' ').length, 8, 'eight words, seven plain spaces');
});

test('a Markdown table cell cannot end early or form a tag or link', () => {
  assert.equal(escapeMarkdownCell('a | b <i>[x](y)</i>'), 'a \\| b &lt;i&gt;\\[x\\](y)&lt;/i&gt;');
});

test('LaTeX: special characters become commands, no command survives, typographic quotes become TeX quotes', () => {
  assert.equal(
    escapeLatex('50% of R&D costs $3 #1 a_b {c} ~d^ \\input{x}'),
    '50\\% of R\\&D costs \\$3 \\#1 a\\_b \\{c\\} \\textasciitilde{}d\\textasciicircum{} \\textbackslash{}input\\{x\\}',
  );
  assert.equal(escapeLatex('\u201cquoted\u201d'), "``quoted''");
});

test('LaTeX prose: straight quotes become TeX quotes; <, >, | text symbols; formulas (k=60, p < 0.05, n ≥ 3, 10^6) in math mode', () => {
  assert.equal(
    escapeLatex('We report "precision at k" ("fused") and \'top\' lists'),
    "We report ``precision at k'' (``fused'') and `top' lists",
  );
  assert.equal(escapeLatex('with k=60, p < 0.05, n ≥ 3 and 10^6 items'), 'with $k=60$, $p<0.05$, $n\\ge 3$ and $10^{6}$ items');
  assert.equal(escapeLatex('5% of top_k & #1, a<b|c'), '5\\% of top\\_k \\& \\#1, $a<b$\\textbar{}c');
  assert.equal(escapeLatex('recall@10 of 0.98, R@10=0.5, mail a=b@x.org'), 'recall@10 of 0.98, R@10=0.5, mail a=b@x.org');
});

test('a dropped reference in corpus text gets its placeholder back: "Fig.." → "Fig. [ref].", "(see Sec.)" → "(see Sec. [ref])"', async () => {
  const { mendDroppedReferences } = await import('../../../../src/core/text/references.ts');
  assert.equal(mendDroppedReferences('as in Fig..'), 'as in Fig. [ref].');
  assert.equal(mendDroppedReferences('faster (see Sec.).'), 'faster (see Sec. [ref]).');
  assert.equal(mendDroppedReferences('As Fig. shows, Table, and Figure.'), 'As Fig. [ref] shows, Table [ref], and Figure [ref].');
  for (const fine of ['See Fig. 3 for details.', 'Eq. (3) holds.', 'In Fig. [ref] it holds.', 'as shown in the table.'])
    assert.equal(mendDroppedReferences(fine), fine);
});

test('LaTeX prose from escapeLatex compiles with pdflatex and reads as written (no ¡ for <, no stray math)', { skip: noPdflatex }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-escape-'));
  try {
    const prose = escapeLatex(
      'Fusion with k=60 beats "precision at k" by 5% on top_k R&D queries #2 when p < 0.05 and R ∈ 20, 50 (α=0.5), a|b > c, 10^6 {x} ~y \\input{z}.',
    );
    assert.ok(
      compilePdf(dir, { name: 'prose', lines: ['\\documentclass{article}', '\\begin{document}', prose, '\\end{document}'] }),
      prose,
    );
    if (noPdftotext) return;
    const text = execFileSync('pdftotext', [join(dir, 'prose.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    assert.match(
      text,
      /with k = 60 beats “precision at k” by 5% on top.k R&D queries #2 when p < 0\.05 and R ∈ 20, 50 \(α = 0\.5\), a\|b > c/,
    );
    assert.doesNotMatch(text, /¡|¿/, text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
