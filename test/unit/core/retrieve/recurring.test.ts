import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { highlightTerms, segments, stem, tokenize, type HighlightRange } from '../../../../src/core/retrieve/recurring.js';

/** The highlighted surface strings of each text. */
function marked(texts: string[], ranges: HighlightRange[][]): string[][] {
  return ranges.map((rs, i) => rs.map((r) => texts[i].slice(r.start, r.end)));
}

const TEXTS = [
  'Large language models achieve strong results on machine translation benchmarks.',
  'We fine-tune a large language model for low-resource translation.',
  'Neural machine translation relies on parallel corpora.',
  'The weather in Lisbon was pleasant.',
];

describe('recurring terms', () => {
  test('words and bigrams shared by at least two hits are marked; stop words and singletons are not', () => {
    const { ranges, terms } = highlightTerms({ texts: TEXTS }, { mode: 'recurring' });
    const m = marked(TEXTS, ranges);
    // "large language models" ↔ "large language model": two recurring bigrams merge into one phrase.
    assert.deepEqual(m[0], ['Large language models', 'machine translation']);
    assert.deepEqual(m[1], ['large language model', 'translation']);
    assert.deepEqual(m[2], ['machine translation']);
    assert.deepEqual(m[3], []);
    const byTerm = new Map(terms.map((t) => [t.term, t]));
    assert.equal(byTerm.get('translation')?.hits, 3);
    assert.equal(byTerm.get('machine translation')?.kind, 'bigram');
    assert.equal(byTerm.get('machine translation')?.hits, 2);
    assert.equal(byTerm.get('large language model')?.kind, 'phrase');
    assert.ok(!byTerm.has('the') && !byTerm.has('on'));
    // Most shared first.
    assert.equal(terms[0].term, 'translation');
  });

  test('ranges are sorted, non-overlapping and inside the text', () => {
    const { ranges } = highlightTerms({ texts: TEXTS }, { mode: 'recurring' });
    ranges.forEach((rs, i) => {
      let at = 0;
      for (const r of rs) {
        assert.ok(r.start >= at && r.end > r.start && r.end <= TEXTS[i].length);
        at = r.end;
      }
    });
  });

  test('a term repeated inside ONE hit does not recur', () => {
    const texts = ['Graph graphs graph everywhere.', 'Nothing in common here.'];
    const { ranges } = highlightTerms({ texts }, { mode: 'recurring' });
    assert.deepEqual(ranges, [[], []]);
  });

  test('minHits raises the bar; bigrams can be turned off', () => {
    const three = highlightTerms({ texts: TEXTS }, { mode: 'recurring', minHits: 3 });
    assert.deepEqual(marked(TEXTS, three.ranges)[2], ['translation']);
    const words = highlightTerms({ texts: TEXTS }, { mode: 'recurring', bigrams: false });
    assert.ok(words.ranges.flat().every((r) => r.kind === 'word'));
  });

  test('bigrams do not cross punctuation', () => {
    const texts = ['We use transformers, attention heads.', 'Transformers attention is studied.'];
    const { ranges } = highlightTerms({ texts }, { mode: 'recurring' });
    assert.ok(ranges[0].every((r) => r.kind === 'word'));
  });

  test('normalisation: case, diacritics, possessives, typographic apostrophes, plurals', () => {
    const texts = ['Fréchet’s distance on studies.', 'the frechet distances of one study'];
    const { ranges } = highlightTerms({ texts }, { mode: 'recurring', bigrams: false });
    assert.deepEqual(marked(texts, ranges), [
      ['Fréchet’s', 'distance'],
      ['frechet', 'distances'],
    ]);
  });

  test('empty input and texts without words', () => {
    assert.deepEqual(highlightTerms({ texts: [] }, { mode: 'recurring' }), { ranges: [], terms: [] });
    assert.deepEqual(highlightTerms({ texts: ['', '12 34', '[1]'] }, { mode: 'recurring' }).ranges, [[], [], []]);
  });

  test('non-BMP characters keep UTF-16 offsets right', () => {
    const texts = ['𝔸 symbolic reasoning 😀 matters.', 'Symbolic reasoning 😀 again.'];
    const { ranges } = highlightTerms({ texts }, { mode: 'recurring' });
    assert.deepEqual(marked(texts, ranges), [['symbolic reasoning'], ['Symbolic reasoning']]);
  });
});

describe('rare terms', () => {
  test('words found in only one hit (not in the query), longest first, capped per text', () => {
    const texts = [
      'Transformers outperform recurrent architectures on summarisation.',
      'Recurrent networks remain competitive on small datasets.',
    ];
    const { ranges } = highlightTerms({ texts, query: 'Do transformers beat recurrent networks?' }, { mode: 'rare', maxRarePerText: 2 });
    const m = marked(texts, ranges);
    // "transformers" is in the query, "recurrent" is in both hits; the two longest others remain.
    assert.deepEqual(m[0], ['architectures', 'summarisation']);
    assert.deepEqual(m[1], ['competitive', 'datasets']);
  });

  test('context sentences count for rarity but are not highlighted', () => {
    const texts = ['Dropout regularises training.', 'Momentum accelerates convergence.'];
    const context = [null, 'Earlier we tried dropout.'];
    const { ranges } = highlightTerms({ texts, context }, { mode: 'rare' });
    const m = marked(texts, ranges);
    assert.ok(!m[0].includes('Dropout'));
    assert.ok(m[0].includes('regularises'));
  });

  test('recurring and rare never mark the same word of a text', () => {
    const rec = highlightTerms({ texts: TEXTS }, { mode: 'recurring' })
      .ranges.flat()
      .map((r) => r.term);
    const rare = highlightTerms({ texts: TEXTS }, { mode: 'rare', maxRarePerText: 99 })
      .ranges.flat()
      .map((r) => r.term);
    for (const t of rare) assert.ok(!rec.includes(t), t);
  });
});

describe('helpers', () => {
  test('stem', () => {
    assert.equal(stem('models'), 'model');
    assert.equal(stem('studies'), 'study');
    assert.equal(stem('training'), 'train');
    assert.equal(stem('embedded'), 'embed');
    assert.equal(stem('running'), 'run');
    assert.equal(stem('string'), 'string');
    assert.equal(stem('corpus'), 'corpus');
    assert.equal(stem('analysis'), 'analysis');
    assert.equal(stem('class'), 'class');
  });

  test('tokenize keeps hyphenated words and drops numbers', () => {
    const toks = tokenize('A state-of-the-art model in 2024 (see [3]).');
    assert.deepEqual(
      toks.map((t) => t.norm),
      ['state-of-the-art', 'model', 'in', 'see'],
    );
  });

  test('segments cover the text exactly', () => {
    const text = '<img src=x onerror=alert(1)> language model';
    const { ranges } = highlightTerms({ texts: [text, 'a language model'] }, { mode: 'recurring' });
    const segs = segments(text, ranges[0]);
    assert.equal(segs.map((s) => s.text).join(''), text);
    assert.deepEqual(
      segs.filter((s) => s.range).map((s) => s.text),
      ['language model'],
    );
  });
});
