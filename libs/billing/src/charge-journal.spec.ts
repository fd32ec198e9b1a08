import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChargeJournal, JournalCharge } from './charge-journal';

const charge = (holdId: string): JournalCharge => ({
  grantId: 'g1',
  holdId,
  teamId: 't1',
  actualMicro: 150,
  at: 1,
  charge: {
    requestId: `req-${holdId}`,
    apiKeyId: null,
    endpoint: '/v1/chat/completions',
    model: 'm',
    promptTokens: 1,
    completionTokens: 1,
    totalTokens: 2,
    details: null,
  },
});

describe('ChargeJournal', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'journal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a live journal of this process is never an orphan; once closed its files are gone', async () => {
    const j = new ChargeJournal(dir);
    j.append(charge('h1'));
    j.append(charge('h2'));
    expect(readdirSync(dir)).toHaveLength(1);
    expect(ChargeJournal.orphans(dir)).toEqual([]);
    await j.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('written(true) drops the segment whose charges are all in the database; later charges start a new one', async () => {
    const j = new ChargeJournal(dir);
    j.append(charge('h1'));
    await j.sync();
    const written = j.written(true);
    // a charge appended while the written segment is being deleted goes to a new segment, which stays
    j.append(charge('h2'));
    await written;
    const left = readdirSync(dir);
    expect(left).toHaveLength(1);
    expect(readFileSync(join(dir, left[0]), 'utf8')).toContain('"holdId":"h2"');
    expect(readFileSync(join(dir, left[0]), 'utf8')).not.toContain('"holdId":"h1"');
    await j.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("journals of a dead process, or of this process's pid but no live journal (a restarted container), are orphans", () => {
    const line = (id: string) => `${JSON.stringify(charge(id))}\n`;
    // a pid no process has (above the kernel's pid_max)
    writeFileSync(join(dir, 'journal-99999999-aaaa-0.ndjson'), line('h1') + line('h2') + '{"cut');
    writeFileSync(join(dir, `journal-${process.pid}-bbbb-0.ndjson`), line('h3'));
    // a live process (this one's parent): not an orphan
    writeFileSync(join(dir, `journal-${process.ppid}-cccc-0.ndjson`), line('h4'));
    writeFileSync(join(dir, 'pending.ndjson'), line('h5'));
    const found = ChargeJournal.orphans(dir).sort((a, b) => a.file.localeCompare(b.file));
    expect(found.map((o) => o.charges.map((c) => c.holdId))).toEqual([['h3'], ['h1', 'h2']]);
    ChargeJournal.remove(found[0].file);
    expect(ChargeJournal.orphans(dir)).toHaveLength(1);
  });
});
