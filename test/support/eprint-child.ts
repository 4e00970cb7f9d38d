// Run as a child process by test/hardening/hostile-web.test.ts: fetches one arXiv e-print through the real
// sources code from the stand-in at argv[2] with the e-print budget argv[4] (bytes), cache in argv[3], and
// prints how the entry ended with the process's peak RSS before and after (process.resourceUsage().maxRSS).
import { emptyCandidate, readFullText, sourceContext, sourcesConfig } from '../../src/core/sources/index.ts';

const [base, cacheDir, budget, id] = process.argv.slice(2);
const peak = () => process.resourceUsage().maxRSS * 1024;
const config = sourcesConfig({
  arxivUrl: base,
  arxivApiUrl: `${base}/api/query`,
  cacheDir,
  arxivIntervalMs: 0,
  maxEprintBytes: Number(budget),
});
const ctx = sourceContext(config, { http: { retryBaseMs: 20, maxRetries: 1, requestTimeoutMs: 5000, deadlineMs: 30_000 } });
const peakBefore = peak();
void readFullText(ctx, { ...emptyCandidate('id'), arxivId: id }).then((r) => {
  process.stdout.write(JSON.stringify({ peakBefore, peakAfter: peak(), outcome: r.outcome, tried: r.tried, errored: r.errored }) + '\n');
});
