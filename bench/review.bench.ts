/**
 * Related-work bench: the pipeline's own time (everything but waiting for the LLM) for 256 candidates, against a
 * chat stand-in that answers at once, and the LLM calls and tokens of a default run (candidates 256, papers 50)
 * on the sample corpus. "Excluding LLM latency" = wall time minus the time during which at least one LLM call
 * was in flight (the union of the call intervals, so parallel calls are not double-counted). Target: ≤ 2 s.
 * Run alone: `node --import tsx bench/review.bench.ts`; bench/run.ts imports `run`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../src/core/embed/index.js';
import type { ChatModel, ChatRequest, ChatResult } from '../src/core/llm/chat.js';
import { OpenAIChat } from '../src/core/llm/chat.js';
import { runReview } from '../src/core/review/index.js';
import type { ReviewResult } from '../src/core/review/types.js';
import { openPGliteStore } from '../src/core/store/pglite.js';
import { loadCorpus, REVIEW_CORPUS, reviewModel, startChatStandin, syntheticCorpus } from '../test/support/chat-standin.js';

/** Records the interval of every call, to subtract LLM time from the wall time. */
class TimedChat implements ChatModel {
  readonly intervals: [number, number][] = [];
  constructor(private readonly inner: ChatModel) {}
  get model(): string {
    return this.inner.model;
  }
  async complete(req: ChatRequest): Promise<ChatResult> {
    const t0 = performance.now();
    try {
      return await this.inner.complete(req);
    } finally {
      this.intervals.push([t0, performance.now()]);
    }
  }
  /** Length of the union of the intervals. */
  busy(): number {
    const s = [...this.intervals].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let start = -Infinity;
    let end = -Infinity;
    for (const [a, b] of s) {
      if (a > end) {
        if (end > start) total += end - start;
        start = a;
        end = b;
      } else end = Math.max(end, b);
    }
    if (end > start) total += end - start;
    return total;
  }
}

const TOPIC = 'How the use of retrieval and embeddings improves the precision of search and the recall of evidence for citations';
const SAMPLE_TOPIC = 'Retrieving example sentences while writing, and grounding generated related work in verified quotes';

function table(r: ReviewResult): string {
  return r.trace.steps
    .map(
      (s) =>
        `  ${s.step.padEnd(10)} ${s.durationMs.toFixed(1).padStart(8)} ms  calls ${String(s.llmCalls).padStart(3)}  tokens ${String(s.tokens.total).padStart(7)}  ` +
        Object.entries(s.counts)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
    )
    .join('\n');
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-review-bench-'));
  const standin = await startChatStandin(reviewModel());
  const embedder = createEmbedder({ provider: 'offline' });
  const chat = () => new TimedChat(new OpenAIChat({ baseURL: standin.baseURL, model: 'standin', apiKey: 'k' }));
  try {
    // 1. 256 candidates from a synthetic corpus of 80 papers × 20 sentences.
    const store = await openPGliteStore(join(dir, 'big'));
    const n = await loadCorpus(store, embedder, syntheticCorpus(80, 20));
    await runReview({ store, embedder, chat: chat(), topic: TOPIC }); // warm-up (JIT, PGlite caches)
    const own: number[] = [];
    let last: ReviewResult | undefined;
    for (let i = 0; i < 3; i++) {
      const c = chat();
      const t0 = performance.now();
      last = await runReview({ store, embedder, chat: c, topic: TOPIC });
      own.push(performance.now() - t0 - c.busy());
    }
    const r = last!;
    const median = [...own].sort((a, b) => a - b)[1];
    const counts = (step: string) => r.trace.steps.find((s) => s.step === step)!.counts;
    console.log(`review bench — corpus ${n} sentences, ${counts('retrieve').candidates} candidates, ${counts('rerank').papers} papers`);
    console.log(`  pipeline time excluding LLM latency: median ${median.toFixed(0)} ms of 3 runs (target ≤ 2000 ms) ${median <= 2000 ? 'OK' : 'OVER TARGET'}`);
    console.log(
      `  LLM calls ${r.trace.total.llmCalls}, tokens ${r.trace.total.tokens.total} (prompt ${r.trace.total.tokens.prompt}, ` +
        `completion ${r.trace.total.tokens.completion}; the stand-in counts words)`,
    );
    console.log(table(r));
    const t0 = performance.now();
    const outline = await runReview({ store, embedder, chat: null, topic: TOPIC });
    console.log(`  evidence outline (no LLM): ${(performance.now() - t0).toFixed(0)} ms, ${outline.cited.length} papers`);
    await store.close();

    // 2. A default run on the sample corpus (samples/corpus, ingested by the real pipeline): calls and tokens.
    const sample = await openPGliteStore(join(dir, 'sample'));
    let corpusName = 'the sample corpus (samples/corpus)';
    try {
      const { ingest } = await import('../src/core/ingest/pipeline.js');
      const summary = await ingest(sample, [join(__dirname, '..', 'samples', 'corpus')], { embedder });
      corpusName += `: ${summary.papers} papers, ${summary.sentences} sentences`;
    } catch (err) {
      corpusName = `the review test corpus (sample corpus not ingested: ${(err as Error).message.split('\n')[0]})`;
      await loadCorpus(sample, embedder, REVIEW_CORPUS);
    }
    const c = chat();
    const t1 = performance.now();
    const s = await runReview({ store: sample, embedder, chat: c, topic: SAMPLE_TOPIC });
    const own2 = performance.now() - t1 - c.busy();
    console.log(`default run on ${corpusName}`);
    console.log(
      `  ${s.trace.total.llmCalls} LLM calls, ${s.trace.total.tokens.total} tokens, ${s.sections.length} sections citing ` +
        `${s.cited.length} papers, check ${s.check.ok ? 'ok' : 'FAILED'}, pipeline time excluding LLM ${own2.toFixed(0)} ms`,
    );
    console.log(table(s));
    await sample.close();
  } finally {
    await standin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('review.bench.ts')) {
  run().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
