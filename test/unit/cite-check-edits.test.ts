// The quick fixes' edits to the author's text (core's replaceKeyEdit / locatorEdit on the citation found), checked as
// the exact text after each fix, LaTeX and Markdown: a key is replaced whole, never mid-word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCitations, locatorEdit, replaceKeyEdit, type CiteFormat, type TextEdit } from '../../src/core/cite-check/index.ts';
import { siteForLocator } from '../../src/extension/cite-check/locator.ts';

function apply(text: string, e: TextEdit | null): string | null {
  return e && text.slice(0, e.range.start) + e.text + text.slice(e.range.end);
}

/** The text after replacing / adding to `key` in the (only) citation holding it. */
function keyFix(text: string, format: CiteFormat, key: string, to: string, mode: 'instead' | 'also'): string | null {
  const site = findCitations(text, format).find((s) => s.keys.includes(key));
  assert.ok(site, `a citation of ${key} in ${text}`);
  return apply(text, replaceKeyEdit(site, key, to, mode));
}

function locatorFix(text: string, format: CiteFormat, key: string, page: number): string | null {
  const site = findCitations(text, format).find((s) => s.keys.includes(key));
  assert.ok(site, `a citation of ${key} in ${text}`);
  const own = siteForLocator(text, site, key);
  return own && apply(text, locatorEdit(own, format, page));
}

test('Cite instead replaces exactly the key, also one that is a prefix of another', () => {
  assert.equal(
    keyFix('Chains form \\citep{smith,smithson2020}.', 'latex', 'smith', 'bearman2004', 'instead'),
    'Chains form \\citep{bearman2004,smithson2020}.',
  );
  assert.equal(
    keyFix('Chains form \\citep{smith, smithson2020}.', 'latex', 'smithson2020', 'bearman2004', 'instead'),
    'Chains form \\citep{smith, bearman2004}.',
  );
  assert.equal(
    keyFix('Chains form [see @smith, p. 2; @smithson2020].', 'markdown', 'smithson2020', 'bearman2004', 'instead'),
    'Chains form [see @smith, p. 2; @bearman2004].',
  );
  assert.equal(keyFix('Chains form [@smith].', 'markdown', 'smith', 'bearman2004', 'instead'), 'Chains form [@bearman2004].');
});

test('Cite also adds the key to the same citation', () => {
  assert.equal(
    keyFix('Chains form \\cite[p.~2]{smith}.', 'latex', 'smith', 'bearman2004', 'also'),
    'Chains form \\cite[p.~2]{smith,bearman2004}.',
  );
  assert.equal(keyFix('Chains form [@smith].', 'markdown', 'smith', 'bearman2004', 'also'), 'Chains form [@smith; @bearman2004].');
});

test('Add page locator: \\cite[p.~3]{key} and [@key, p. 3]', () => {
  assert.equal(locatorFix('As shown \\cite{smith}.', 'latex', 'smith', 3), 'As shown \\cite[p.~3]{smith}.');
  assert.equal(locatorFix('As shown \\citep{smith}.', 'latex', 'smith', 3), 'As shown \\citep[p.~3]{smith}.');
  assert.equal(locatorFix('As shown [@smith].', 'markdown', 'smith', 3), 'As shown [@smith, p. 3].');
  assert.equal(locatorFix('As shown [@jones; @smith].', 'markdown', 'smith', 3), 'As shown [@jones; @smith, p. 3].');
  assert.equal(locatorFix('As shown [@jones, p. 9; @smith].', 'markdown', 'smith', 3), 'As shown [@jones, p. 9; @smith, p. 3].');
  assert.equal(locatorFix('As shown \\cite[p.~9]{smith}.', 'latex', 'smith', 3), null, 'a locator already written is kept');
  assert.equal(locatorFix('As shown [@smith, p. 9; @jones].', 'markdown', 'smith', 3), null, 'a locator already written is kept');
  assert.equal(
    locatorFix('As shown \\cite{smith,jones}.', 'latex', 'smith', 3),
    null,
    'a LaTeX note is for every key: none for one of several',
  );
});
