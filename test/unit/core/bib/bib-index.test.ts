// One BibTeX index answers "is this paper already in the .bib, and under which key?" for Cite (and Cite from
// Zotero) and for Generate Related Work (its keys and its Append BibTeX): the same .bib and the same corpus paper
// get the same answer from both, whether the entry is found by key, by a DOI written in another case or as a URL,
// by an arXiv id, by a title with other braces and case, or inside an entry the parser rejects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planCitation } from '../../../../src/core/bib/cite.ts';
import { BibIndex } from '../../../../src/core/bib/bib-index.ts';
import { citedPaper, entriesToAppend } from '../../../../src/core/review/emit.ts';
import { toHitView } from '../../../../src/extension/panel/hit-view.ts';
import type { Hit, PaperRef } from '../../../../src/core/store/types.ts';

const BIB = `@string{acl = "Proceedings of ACL"}

@inproceedings{devlin2019bert,
  title = {{BERT}: Pre-training of Deep Bidirectional {T}ransformers for Language Understanding},
  author = {Devlin, Jacob and Chang, Ming-Wei},
  booktitle = acl,
  year = {2019}
}

@inproceedings{Lewis:RAG,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick},
  doi = {https://doi.org/10.5555/RAG.2020.ABC},
  year = {2020}
}

@misc{corpusstudio,
  title = {An Early Title of the Preprint},
  eprint = {2503.12436},
  archivePrefix = {arXiv},
  year = {2025}
}

@book{Lovelace:1843notes,
  author = {Lovelace, Ada},
  year = {1843}
}

@article{broken2021,
  title = {Unbalanced {Braces in a Title,
  doi = {10.7777/Broken.7},
  year = 2021
`;

const paper = (o: Partial<PaperRef> & { id: string }): PaperRef => ({
  title: null,
  authors: ['Ann Smith'],
  year: 2021,
  venue: null,
  doi: null,
  citationKey: null,
  ...o,
});

/** Corpus papers as the store returns them, and where the .bib has each (null: not there). */
const CASES: Array<{ why: string; paper: PaperRef; present: string | null }> = [
  {
    why: 'title, other braces and case',
    paper: paper({ id: 'sha256:aa', title: 'BERT: pre-training of deep bidirectional transformers for language understanding' }),
    present: 'devlin2019bert',
  },
  {
    why: 'DOI in lower case, the .bib has a doi.org URL in upper case',
    paper: paper({ id: 'doi:10.5555/rag.2020.abc', doi: '10.5555/rag.2020.abc', title: 'RAG' }),
    present: 'Lewis:RAG',
  },
  {
    why: 'DOI written as doi: prefix in mixed case',
    paper: paper({ id: 'sha256:bb', doi: 'DOI:10.5555/Rag.2020.Abc', title: 'Another title' }),
    present: 'Lewis:RAG',
  },
  {
    why: 'arXiv id from the corpus id, with a version',
    paper: paper({ id: 'arxiv:2503.12436v2', title: 'CorpusStudio: Surfacing Emergent Patterns' }),
    present: 'corpusstudio',
  },
  {
    why: 'its own key, the entry naming no other paper',
    paper: paper({ id: 'sha256:cc', title: 'Sketch of the Analytical Engine', citationKey: 'Lovelace:1843notes' }),
    present: 'Lovelace:1843notes',
  },
  {
    why: 'DOI inside an entry the parser rejects',
    paper: paper({ id: 'doi:10.7777/broken.7', doi: '10.7777/broken.7', title: 'Unbalanced Braces in a Title' }),
    present: 'broken2021',
  },
  { why: 'not there', paper: paper({ id: 'sha256:dd', title: 'Something New Entirely', authors: ['Grace Hopper'] }), present: null },
  {
    why: 'own key given to another paper in the .bib',
    paper: paper({
      id: 'doi:10.1/other',
      doi: '10.1/other',
      title: 'Parsing With Pictures',
      citationKey: 'devlin2019bert',
      authors: ['Kim Lee'],
    }),
    present: null,
  },
];

function hitOf(p: PaperRef): Hit {
  const sentence = { id: 1, paperId: p.id, sectionId: 1, position: 0, text: 'A sentence.', sectionTitle: 'Intro' };
  return { similarity: 1, score: 1, sentence, previous: null, next: null, paper: p } as unknown as Hit;
}

test('Cite and Generate Related Work give the same "already present → existing key" answer for the same .bib', async () => {
  const index = await BibIndex.read(BIB);
  for (const c of CASES) {
    // Cite: the panel's hit, as citeHit passes it.
    const view = toHitView(hitOf(c.paper));
    const cite = await planCitation(BIB, { ...view.paper, arxivId: null });
    // Related work: the store's paper, against the index the command builds from the same text.
    const related = citedPaper(c.paper, 'P1', index, new Set(index.keys));
    if (c.present) {
      assert.deepEqual(cite, { key: c.present, entry: null }, `Cite, ${c.why}`);
      assert.equal(related.key, c.present, `related work, ${c.why}`);
      assert.equal(related.reused, true, `related work, ${c.why}`);
      assert.deepEqual(entriesToAppend([related], index), [], `Append BibTeX adds nothing, ${c.why}`);
    } else {
      assert.ok(cite.entry, `Cite adds an entry, ${c.why}`);
      assert.equal(related.reused, false, `related work, ${c.why}`);
      assert.equal(cite.key, related.key, `both make the same new key, ${c.why}`);
      assert.ok(!index.hasKey(cite.key), `a new key is not one of the .bib's, ${c.why}: ${cite.key}`);
      assert.deepEqual(entriesToAppend([related], index), [related.bibtex], `Append BibTeX adds it, ${c.why}`);
    }
  }
});

test('Cite from Zotero: an item the .bib has under another key is cited by that key; its own key, if taken by another paper, is not reused', async () => {
  const rag = {
    title: 'Retrieval-augmented generation for knowledge-intensive NLP tasks',
    authors: ['Patrick Lewis'],
    year: 2020,
    venue: null,
    doi: '10.5555/RAG.2020.abc',
    arxivId: null,
    url: null,
  };
  const own = {
    key: 'lewis2020retrieval',
    entry: '@inproceedings{lewis2020retrieval,\n  title = {Retrieval-augmented generation},\n  zoterokey = {ABCD1234}\n}',
  };
  assert.deepEqual(await planCitation(BIB, { ...rag, citationKey: own.key }, own), { key: 'Lewis:RAG', entry: null });
  const other = {
    title: 'Parsing with Pictures',
    authors: ['Kim Lee'],
    year: 2001,
    venue: null,
    doi: '10.1/other',
    arxivId: null,
    url: null,
    citationKey: 'devlin2019bert',
  };
  const plan = await planCitation(BIB, other, {
    key: 'devlin2019bert',
    entry: '@article{devlin2019bert,\n  title = {Parsing with Pictures},\n  zoterokey = {EFGH5678}\n}',
  });
  assert.equal(plan.key, 'lee2001parsing');
  assert.equal(
    plan.entry,
    '@article{lee2001parsing,\n  title = {Parsing with Pictures},\n  zoterokey = {EFGH5678}\n}',
    "Zotero's entry, under the new key",
  );
});

test('a .bib no parser can read still answers by key and DOI, and never throws', async () => {
  for (const bib of [
    '@article{x1, doi = {10.9999/Z}, title = {',
    '@@@{{{',
    '\u0000@misc{',
    '@article{dup, title={A}}\n@article{dup, title={B}}',
  ]) {
    const p = { title: 'Some Title Here', authors: ['Ann Smith'], year: 2020, venue: null, doi: '10.9999/z', arxivId: null, url: null };
    const plan = await planCitation(bib, p);
    if (bib.startsWith('@article{x1')) assert.deepEqual(plan, { key: 'x1', entry: null });
    else assert.ok(plan.entry && plan.key, JSON.stringify(plan));
    const index = await BibIndex.read(bib);
    assert.equal(citedPaper({ id: 'doi:10.9999/z', ...p }, 'P1', index, new Set(index.keys)).key, plan.key);
  }
});
