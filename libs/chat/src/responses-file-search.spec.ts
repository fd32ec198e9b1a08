import { fileCitations, FileSearchRun } from './responses-file-search';

const run: FileSearchRun = {
  item: { id: 'fs_1', type: 'file_search_call', status: 'completed', queries: ['q'], results: null },
  sources: [
    { n: 1, fileId: 'file-a', filename: 'a.pdf', text: 'Alpha is first.\nThe launch is on 4 May.' },
    { n: 2, fileId: 'file-b', filename: 'b.txt', text: 'Beta   ships in\nJune.' },
  ],
};

describe('fileCitations', () => {
  it('[n] markers cite source n at the marker; unknown numbers are not citations', () => {
    const text = 'Launch on 4 May [1], Beta in June [2] and [7].';
    expect(fileCitations(text, run)).toEqual([
      { type: 'file_citation', file_id: 'file-a', filename: 'a.pdf', index: text.indexOf('[1]') },
      { type: 'file_citation', file_id: 'file-b', filename: 'b.txt', index: text.indexOf('[2]') },
    ]);
  });

  it('without markers, each quoted line cites the source holding it (whitespace-insensitive), at its end', () => {
    const text = 'The launch is on 4 May.\nBeta ships in June.\nSomething the sources never said.';
    expect(fileCitations(text, run)).toEqual([
      { type: 'file_citation', file_id: 'file-a', filename: 'a.pdf', index: 'The launch is on 4 May.'.length },
      { type: 'file_citation', file_id: 'file-b', filename: 'b.txt', index: text.indexOf('\nSomething') },
    ]);
  });

  it('no search, no sources or an empty answer → no citations', () => {
    expect(fileCitations('The launch is on 4 May.', null)).toEqual([]);
    expect(fileCitations('The launch is on 4 May.', { ...run, sources: [] })).toEqual([]);
    expect(fileCitations('', run)).toEqual([]);
  });
});
