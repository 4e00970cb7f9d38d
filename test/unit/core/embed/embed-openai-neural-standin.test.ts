// The OpenAI path with vectors that carry meaning (test/support/neural-standin.ts): through the real `openai`
// client, the model family's prefixes reach the server, and a paraphrase outranks a word-overlap decoy — in the
// embedder, and through `corpus-lens ingest/query --embedder openai` into a corpus and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../../../../src/core/embed/index.js';
import { runCli } from '../../../support/cli.ts';
import { CORPUS_SENTENCE, DECOY, PARAPHRASE, SENTENCE, dot, writeParaphraseCorpus } from '../../../support/paraphrase.ts';
import { startNeuralStandin } from '../../../support/neural-standin.ts';

test(
  'openai embedder against the neural stand-in: nomic prefixes are sent, and the paraphrase outranks the decoy',
  { timeout: 180_000 },
  async () => {
    const standin = await startNeuralStandin();
    try {
      const e = createEmbedder({ provider: 'openai', model: 'nomic-embed-text', baseURL: standin.baseURL, apiKey: 'none' });
      const [sentence, decoy] = await e.embed([SENTENCE, DECOY], { role: 'document' });
      const [query] = await e.embed([PARAPHRASE], { role: 'query' });
      assert.equal(sentence.length, 512);
      const inputs = standin.requests.flatMap((r) => (Array.isArray(r.body?.input) ? r.body.input : [r.body?.input]));
      assert.deepEqual(inputs.sort(), [`search_document: ${DECOY}`, `search_document: ${SENTENCE}`, `search_query: ${PARAPHRASE}`]);
      assert.ok(
        dot(query, sentence) > dot(query, decoy) + 0.05,
        `paraphrase ${dot(query, sentence).toFixed(3)} vs decoy ${dot(query, decoy).toFixed(3)}`,
      );
    } finally {
      await standin.close();
    }
  },
);

test(
  'corpus-lens ingest/query --embedder openai with meaningful vectors: a paraphrase query finds its sentence, not the decoy',
  { timeout: 600_000 },
  async () => {
    // text-embedding-3-small: a model whose size (1536) the client knows, so the corpus is created without a probe.
    const standin = await startNeuralStandin({ size: 1536 });
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-openai-neural-'));
    try {
      const folder = join(dir, 'papers');
      mkdirSync(folder);
      writeParaphraseCorpus(folder);
      const db = join(dir, 'corpus');
      const env = { OPENAI_BASE_URL: standin.baseURL, OPENAI_API_KEY: 'none' };
      const flags = ['--embedder', 'openai', '--model', 'text-embedding-3-small', '--prefixes', 'search_query: |search_document: '];

      const made = await runCli(['ingest', '--db', db, ...flags, '--json', folder], { env });
      assert.equal(made.code, 0, made.stderr);
      const hits = await runCli(['query', '--db', db, ...flags, '--k', '2', PARAPHRASE], { env });
      assert.equal(hits.code, 0, hits.stderr);
      const texts = (JSON.parse(hits.stdout) as { sentence: { text: string } }[]).map((h) => h.sentence.text);
      assert.equal(texts[0], CORPUS_SENTENCE, texts.join(' | '));
      const inputs = standin.requests.flatMap((r) => (Array.isArray(r.body?.input) ? r.body.input : [r.body?.input ?? '']));
      assert.ok(inputs.includes(`search_query: ${PARAPHRASE}`), 'the query went with its prefix');
      assert.ok(
        inputs.includes('search_document: Computer mice were fed through a high-speed sorting machine.'),
        'sentences went with theirs',
      );
    } finally {
      await standin.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
