// Which figures are diagrams (issue 36, item 10; src/core/ingest/diagram.ts): the caption names a drawing of a
// structure and no measurement. Real captions: the first four from the sample corpus's and fixtures' kinds of papers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { figureKind } from '../../src/core/ingest/diagram.ts';

test('a caption naming a drawing of a structure and no measurement is a diagram; plots, photos and no caption are figures', () => {
  const diagrams = [
    'Architecture of the sentence encoder with its mean pooling layer.',
    'Overview of the proposed retrieval pipeline.',
    'Schematic of the ocean current circulation around Antarctica.',
    'Block diagram of the receiver.',
    'The annotation workflow: crawling, filtering and labelling.',
    'Flowchart of patient selection.',
    'An illustration of the attention mechanism.',
  ];
  const figures = [
    'Recall at ten as the corpus grows from one to one hundred thousand sentences.',
    'Pipeline throughput versus batch size.',
    'Accuracy of each architecture on the test set.',
    'Latency of the pipeline as a function of corpus size.',
    'Overview of the results on all benchmarks.',
    'A photograph of the field site in spring.',
    'Memory use of dense and sparse attention as the input grows.',
  ];
  for (const c of diagrams) assert.equal(figureKind(c), 'diagram', c);
  for (const c of figures) assert.equal(figureKind(c), 'figure', c);
  assert.equal(figureKind(null), 'figure');
  assert.equal(figureKind(''), 'figure');
});
