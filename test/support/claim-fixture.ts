/**
 * The labelled claim-support fixture (test/fixtures/claim-support.json): pairs of (sentence, cited quotes),
 * faithful or unfaithful by kind, split into a train half (even groups) and a held-out half (odd groups), and
 * the figures a checker reaches on them (unfaithful caught, faithful kept), for the test and the bench.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClaimPair {
  paper: string;
  /** The cited paper's title (evidence for terms, as in the pipeline). */
  title: string;
  quotes: string[];
  sentence: string;
  faithful: boolean;
  kind: string;
  half: 'train' | 'heldout';
}

interface Group {
  paper: string;
  title: string;
  quotes: string[];
  faithful: string[];
  unfaithful: [string, string][];
}

export function loadClaimFixture(root: string): ClaimPair[] {
  const { groups } = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'claim-support.json'), 'utf8')) as { groups: Group[] };
  return groups.flatMap((g, i) => {
    const half = i % 2 === 0 ? ('train' as const) : ('heldout' as const);
    return [
      ...g.faithful.map((sentence) => ({
        paper: g.paper,
        title: g.title,
        quotes: g.quotes,
        sentence,
        faithful: true,
        kind: 'faithful',
        half,
      })),
      ...g.unfaithful.map(([kind, sentence]) => ({
        paper: g.paper,
        title: g.title,
        quotes: g.quotes,
        sentence,
        faithful: false,
        kind,
        half,
      })),
    ];
  });
}

export interface ClaimScore {
  pairs: number;
  /** Unfaithful pairs judged unsupported / all unfaithful. */
  caught: number;
  /** Faithful pairs judged supported / all faithful. */
  kept: number;
  missed: ClaimPair[];
  rejected: ClaimPair[];
}

/** `supported(pair)`: the checker's verdict. */
export function scoreClaims(pairs: readonly ClaimPair[], supported: (p: ClaimPair) => boolean): ClaimScore {
  const unfaithful = pairs.filter((p) => !p.faithful);
  const faithful = pairs.filter((p) => p.faithful);
  const missed = unfaithful.filter((p) => supported(p));
  const rejected = faithful.filter((p) => !supported(p));
  return {
    pairs: pairs.length,
    caught: unfaithful.length ? (unfaithful.length - missed.length) / unfaithful.length : 1,
    kept: faithful.length ? (faithful.length - rejected.length) / faithful.length : 1,
    missed,
    rejected,
  };
}
