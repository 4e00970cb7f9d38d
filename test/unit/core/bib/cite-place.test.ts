// Where Cite puts a citation: the document as the user sees it after the edit, for cursors all over a sentence.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { placeCitation } from '../../../../src/core/bib/place.ts';

/** The document after citing `keys` with the cursor at the `|` in `doc` (the `|` is removed first). */
function cite(doc: string, format: 'latex' | 'markdown', keys: string | string[] = 'key', command?: 'citep'): string {
  const offset = doc.indexOf('|');
  assert.ok(offset >= 0, 'test document needs a | cursor');
  const text = doc.slice(0, offset) + doc.slice(offset + 1);
  const edit = placeCitation(text, format, offset, keys, { command });
  return text.slice(0, edit.offset) + edit.text + text.slice(edit.offset);
}

const LATEX = 'Retrieval uses the cosine similarity of each. Then we rank them.';

test('LaTeX: every cursor position in a sentence cites at its end, before the full stop', () => {
  const expected = 'Retrieval uses the cosine similarity of each~\\cite{key}. Then we rank them.';
  const end = LATEX.indexOf('.') + 1;
  for (let at = 0; at <= end; at++) {
    const doc = `${LATEX.slice(0, at)}|${LATEX.slice(at)}`;
    assert.equal(cite(doc, 'latex'), expected, `cursor at ${at}: ${doc}`);
  }
});

test('LaTeX: mid-word cursor never splits the word', () => {
  assert.equal(
    cite('The score is t|he cosine of the two vectors. Next.', 'latex'),
    'The score is the cosine of the two vectors~\\cite{key}. Next.',
  );
});

test('LaTeX: a cursor after the full stop cites the sentence it ends, not the next one', () => {
  assert.equal(cite('We compare each.| Then we rank.', 'latex'), 'We compare each~\\cite{key}. Then we rank.');
  assert.equal(cite('We compare each. Then we rank.|', 'latex'), 'We compare each. Then we rank~\\cite{key}.');
});

test('LaTeX: merges into the citation already ending the sentence and keeps its command and options', () => {
  assert.equal(cite('Scores vary~\\cite{a,b}.| Next.', 'latex'), 'Scores vary~\\cite{a,b,key}. Next.');
  assert.equal(cite('Sc|ores vary \\citep[p.~3]{a}. Next.', 'latex'), 'Scores vary \\citep[p.~3]{a,key}. Next.');
  assert.equal(cite('Scores vary~\\autocite{a}|.', 'latex', ['b', 'c']), 'Scores vary~\\autocite{a,b,c}.');
  // Citing a key that is already there changes nothing.
  assert.equal(cite('Scores vary~\\cite{a,key}.| Next.', 'latex'), 'Scores vary~\\cite{a,key}. Next.');
});

test('LaTeX: a citation mid-sentence is not merged into; the new one goes at the end', () => {
  assert.equal(cite('Cosine~\\cite{a} is |common here. Next.', 'latex'), 'Cosine~\\cite{a} is common here~\\cite{key}. Next.');
});

test('LaTeX: the configured command is used for a new citation', () => {
  assert.equal(cite('Scores v|ary. Next.', 'latex', 'key', 'citep'), 'Scores vary~\\citep{key}. Next.');
});

test('LaTeX: before closing quotes and other end punctuation; a closed bracket stays before it', () => {
  assert.equal(cite("We call it ``dense ret|rieval.'' Next.", 'latex'), "We call it ``dense retrieval~\\cite{key}.'' Next.");
  assert.equal(cite('Is it c|ommon? Yes.', 'latex'), 'Is it common~\\cite{key}? Yes.');
  assert.equal(cite('We use it (see a|bove). Next.', 'latex'), 'We use it (see above)~\\cite{key}. Next.');
});

test('LaTeX: a sentence ending in a footnote is still a sentence; the citation goes before the footnote', () => {
  assert.equal(
    cite('Retrieval is co|mmon\\footnote{See the appendix.}. Next.', 'latex'),
    'Retrieval is common~\\cite{key}\\footnote{See the appendix.}. Next.',
  );
  // Cursor right after the footnote that follows the full stop.
  assert.equal(
    cite('Retrieval is common.\\footnote{See the appendix.}| Next.', 'latex'),
    'Retrieval is common~\\cite{key}.\\footnote{See the appendix.} Next.',
  );
  // Inside the footnote, the footnote's own sentence is cited.
  assert.equal(
    cite('Retrieval is common.\\footnote{See the ap|pendix.} Next.', 'latex'),
    'Retrieval is common.\\footnote{See the appendix~\\cite{key}.} Next.',
  );
});

test('LaTeX: a sentence spread over lines and one without a full stop', () => {
  assert.equal(
    cite('Dense retrieval\nis fa|st on\nlong documents.\n\nNext.', 'latex'),
    'Dense retrieval\nis fast on\nlong documents~\\cite{key}.\n\nNext.',
  );
  assert.equal(
    cite('\\section{Intro}\nA claim without a st|op\n\nNext.', 'latex'),
    '\\section{Intro}\nA claim without a stop~\\cite{key}\n\nNext.',
  );
});

test('Markdown: mid-word, end of sentence and merging into [@a; @b]', () => {
  assert.equal(cite('Hybrid search helps querie|s. Next one.', 'markdown'), 'Hybrid search helps queries [@key]. Next one.');
  assert.equal(cite('Hybrid search helps queries.| Next one.', 'markdown'), 'Hybrid search helps queries [@key]. Next one.');
  assert.equal(cite('Hybrid |search helps [@a; @b]. Next.', 'markdown'), 'Hybrid search helps [@a; @b; @key]. Next.');
  assert.equal(
    cite('Hybrid search helps [see @a, p. 3].| Next.', 'markdown', ['b', 'c']),
    'Hybrid search helps [see @a, p. 3; @b; @c]. Next.',
  );
  // A footnote reference ends the sentence; a link is not a citation.
  assert.equal(cite('It hel|ps[^1]. Next.\n\n[^1]: A note.\n', 'markdown'), 'It helps [@key][^1]. Next.\n\n[^1]: A note.\n');
  assert.equal(cite('See [the docs](http://x.org).| Next.', 'markdown'), 'See [the docs](http://x.org) [@key]. Next.');
});

test('Outside prose the citation goes after the word under the cursor, not inside it', () => {
  assert.equal(cite('\\section{Intr|oduction}\n\nText.', 'latex'), '\\section{Introduction~\\cite{key}}\n\nText.');
});

test('no key is an error, not an empty citation', () => {
  assert.throws(() => placeCitation('A b.', 'latex', 1, []), /no citation key/);
});

test('LaTeX: a sentence right above \\bibliography{…} (no blank line) is cited before its full stop, not after the command', () => {
  assert.equal(
    cite('\\section{Intro}\nWe study cor|pora of papers.\n\\bibliography{refs}\n', 'latex'),
    '\\section{Intro}\nWe study corpora of papers~\\cite{key}.\n\\bibliography{refs}\n',
  );
  assert.equal(
    cite('We study cor|pora of papers\n\\printbibliography[heading=none]\n', 'latex'),
    'We study corpora of papers~\\cite{key}\n\\printbibliography[heading=none]\n',
  );
});
