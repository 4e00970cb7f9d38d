import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { stripCitationDebris } from '../../../../src/core/retrieve/citation-debris.ts';

test('citation debris goes from a query; the claim and its scientific terms stay', () => {
  const cases: Array<[string, string]> = [
    ['As Okafor et al. (2019) showed, TNF-α drives the flare [12].', 'As showed, TNF-α drives the flare.'],
    ['Lithium lowers relapse risk (Ng & Park, 2019; Li, 2021a, p. 5).', 'Lithium lowers relapse risk.'],
    ['The IC50 was 4.2 μM (Fig. 3b), lower than reported [3–5].', 'The IC50 was 4.2 μM, lower than reported.'],
    [
      'Knock-down of BRCA1 sensitises cells\\cite{ruiz21} to PARP inhibitors~\\citep[p.~3]{lee20}.',
      'Knock-down of BRCA1 sensitises cells to PARP inhibitors.',
    ],
    ['SARS-CoV-2 binds ACE2 [@zhou2020; @hoff2020] in lung tissue (refs 4, 5).', 'SARS-CoV-2 binds ACE2 in lung tissue.'],
    ['Mortality rose to 42.3% in 2020 (n = 120).', 'Mortality rose to 42.3% in 2020 (n = 120).'],
    ['Dosing followed the protocol (Supplementary Table 2).', 'Dosing followed the protocol.'],
  ];
  for (const [query, expected] of cases) assert.equal(stripCitationDebris(query), expected, query);
});

test('a query that is all debris is kept as it is rather than emptied', () => {
  assert.equal(stripCitationDebris('Smith et al. [12]'), 'Smith et al. [12]');
  assert.equal(stripCitationDebris(''), '');
});
