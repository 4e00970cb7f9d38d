// Which corpus paper a cited work is (corpusPaperOf): a title printed inside the reference entry counts only when it is
// long enough to be specific, a Han or kana character counting two Latin ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { corpusPaperOf } from '../../../../src/core/retrieve/inner-citations.js';
import type { CitedWork, PaperRef } from '../../../../src/core/store/types.js';

const paper = (id: string, title: string): PaperRef => ({ id, title, authors: [], year: null, venue: null, doi: null, citationKey: null });
const work = (text: string): CitedWork => ({ label: '1', key: null, text, authors: [], year: null, title: null, doi: null, citedBy: [0] });
const found = (text: string, papers: PaperRef[]) => corpusPaperOf(work(text), papers, 'quoting')?.id ?? null;

test('a Chinese or Japanese title of 10 characters printed in the entry is that paper; a 4-character one is too generic', () => {
  const papers = [paper('zh', '深度学习的文本检索方法研究'), paper('ja', '深層学習による文検索'), paper('short', '深度学习')];
  assert.equal(found('[3] 王五. 深度学习的文本检索方法研究[J]. 计算机学报, 2020.', papers), 'zh');
  assert.equal(found('[5] 山田太郎: 深層学習による文検索, 情報処理学会論文誌, 2021.', papers), 'ja');
  assert.equal(found('[6] 张三. 深度学习[M]. 北京: 科学出版社, 2018.', papers), null);
});

test('a Latin title needs 20 characters, as before', () => {
  const papers = [paper('a', 'Dense Retrieval Wins'), paper('b', 'Dense Retrieval Win')];
  assert.equal(found('J. Doe. Dense retrieval wins. In ACL, 2020.', papers), 'a');
  assert.equal(found('J. Doe. Dense retrieval win. In ACL, 2020.', papers), null);
});
