/**
 * Word lists for the sentence splitter (split.ts). All entries are lower case and without the final period;
 * multi-period abbreviations keep their inner periods (`e.g`, `ph.d`).
 */

function set(words: string): ReadonlySet<string> {
  return new Set(words.trim().split(/\s+/));
}

/**
 * Abbreviations that are always followed by more of the same sentence: titles before a name, and the
 * reference words of scientific prose (`Fig. 3`, `Eq. (2)`, `Sec. IV`), which are followed by a label even
 * when that label is capitalised. pySBD's prepositive list plus the scientific ones.
 */
export const NEVER_FINAL = set(`
  adm attys brig capt cmdr col cpl det dr drs gen gov hon ing lt maj mr mrs ms messrs mssrs mme mlle msgr
  prof ph pres rep reps rev sen sens sgt st supt mt mtn v vs viz cf e.g i.e approx ca
  fig figs eq eqs eqn eqns sec secs sect sects tab tabs ch chap chaps thm thms def defs prop props lem lemm
  cor conj alg algo algs appx suppl ref refs obs rem ex exs
`);

/**
 * Abbreviations that end a sentence when the next word is capitalised (`… and Co. It closed.`) but never
 * before a number or a lower-case word (`p. 55`, `no. 5`, `et al. (2020)`, `etc. and`). pySBD's English
 * list without the entries that are also common words (`is`, `me`, `may`, `ill`, …), plus academic ones.
 */
export const ABBREVIATIONS = set(`
  adj adv al ala alta apr arc ariz ark art assn asst aug ave bart bld bldg blvd bros btw cal calif cl
  acad biol co comdr conn corp cres ct d.phil dak dec del dept dist dr.phil dr.philos ens esp esq etc exp expy ext
  feb fed fla ft fwy fy ga hosp hr hway hwy ia ida inc ind insp jan jr jul jun kan kans ken ky la ltd
  mar mass md med mex mfg mich min minn mo mont neb nebr nev no nos nov nr oct okla ont op ord
  p pa pd pde penn penna pfc ph.d pl plz pp pvt que rd rs res rt sask sep sept sfc sr surg tce tenn tex
  univ usafa ut va ver vt wash wis wyo yuk
  vol vols ed eds edn trans proc conf intl jour natl resp cent chem phys math stat comput
  eng biol sci soc misc est fn incl max std var
`);

/**
 * Capitalised words that start a sentence far more often than they continue a name, so they decide whether
 * an initialism (`U.S.`, `E.U.`, `i.v.`) ends the sentence: `… in the U.S. The …` but `the U.S. Army`.
 * pySBD's list, widened with the pronouns, determiners and connectives that open sentences in papers.
 */
export const SENTENCE_STARTERS = set(`
  a an the this that these those it its he she they we i you our their his her my there here
  being did for how however in on at as to by if when where what who why which while since after before
  although though because but and so thus hence therefore moreover furthermore finally first second then
  also millions more most many some all each both such one no note similarly instead indeed overall
`);

/**
 * pySBD's own, narrower list, for single capital letters: those are usually initials (`Albert I. Jones`),
 * so only these words make `X.` end a sentence (`… you and I. Did …`).
 */
export const INITIAL_BREAKERS = set(`
  a being did for he how however i in it millions more she that the there they we what when where who why
`);

/**
 * Words that may stand right before an initial (`by J. Smith`, `and I. Jones`, `of M. Curie`). After any
 * other lower-case word a single capital is a label (`model B.`, `vitamin D.`, `time T.`), which may end
 * a sentence like any word.
 */
export const BEFORE_INITIALS = set(`
  and or nor of by with to from for in on at via per than see cf thank thanks dear
`);

/** Names spelled with an exclamation mark, which ends no sentence. */
export const EXCLAMATION_NAMES = set(`yahoo yum jeopardy`);

/** Prepositions that open a time phrase (`At 5 a.m. Mr. Smith …`) which is not a sentence of its own. */
export const TIME_PREPOSITIONS = set(`at by before after until till from since around about on`);

/** Words after which an enumeration marker continues the sentence (`(i) this, and (ii) that`). */
export const CONJUNCTIONS = set(`and or nor but then plus & as e.g i.e`);

/**
 * Abbreviations of scholarly citation that stand before names, venues and parts of a work (`Smith et al.
 * Nature 2019`, `Weber, op. cit. Chapter 4`, `ibid. Part II`); `op cit` and `loc cit` are read as pairs.
 */
export const CITATION_ABBREVIATIONS: ReadonlySet<string> = new Set(['al', 'ibid', 'op cit', 'loc cit']);

/** Words that continue a name or a list of names after a capitalised word (`Bergström and Lind`). */
export const NAME_JOINERS = set(`and & et de del della der van von la le da dos du y`);

/** Capitalised words that introduce a part of a work (`op. cit. Chapter 4`, `ibid. Section 2`). */
export const REFERENCE_WORDS = set(`
  chapter chapters section sections part parts volume vol book appendix table figure fig page pages p pp
  note notes line lines article art para paragraph eq eqs equation sec ch no nos
`);
