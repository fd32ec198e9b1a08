/**
 * A replica killed with SIGKILL during OCR leaves no pdftoppm or tesseract behind: a node process
 * starts both tools exactly as the gateway does (libs/knowledge/src/parsers/bounded-tool.ts, compiled
 * here with SWC), is killed with SIGKILL while they run, and within a few seconds — far below the
 * tools' own time limit — none of them is left.
 */
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from '@swc/core';
import { scannedPdf } from './kb-fixtures';

const has = (tool: string, arg: string): boolean => {
  try {
    execFileSync(tool, [arg], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const hasPdftoppm = has('pdftoppm', '-v');
/** tesseract joins the test where it is installed (CI installs it; .ci/run) */
const hasTesseract = has('tesseract', '--version');

/** Live processes whose command line mentions `marker`: [pid, command line]. */
function processesWith(marker: string): [number, string][] {
  const out: [number, string][] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie has ended
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // the tools themselves, not the wrapper, timeout or watchdog that name them in their arguments
      const cmd = argv.join(' ');
      if (cmd.includes(marker) && /(^|\/)(pdftoppm|tesseract)$/.test(argv[0])) out.push([Number(pid), cmd]);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

(hasPdftoppm ? describe : describe.skip)('OCR tools die with the replica that started them', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-ocr-orphans-'));
    const compiled = transformSync(
      readFileSync(join(__dirname, '../../libs/knowledge/src/parsers/bounded-tool.ts'), 'utf8'),
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
      },
    );
    writeFileSync(join(dir, 'bounded-tool.js'), compiled.code);
    const pages = Array.from({ length: 12 }, (_, i) => [
      `Page ${i + 1} of a scanned contract.`,
      'Lorem ipsum dolor sit amet.',
    ]);
    writeFileSync(join(dir, 'scan.pdf'), await scannedPdf(pages));
    execFileSync('pdftoppm', [
      '-r',
      '400',
      '-png',
      '-gray',
      '-f',
      '1',
      '-l',
      '1',
      join(dir, 'scan.pdf'),
      join(dir, 'one'),
    ]);
    // the replica: starts a long render and a long recognition the way PdfOcr does, then waits
    writeFileSync(
      join(dir, 'replica.js'),
      `const { execFile } = require('node:child_process');
const { boundedTool } = require('./bounded-tool.js');
const [dir, image] = process.argv.slice(2);
const start = (file, args) => execFile('/bin/sh', boundedTool(file, args, 1024, 120000), { timeout: 120000, killSignal: 'SIGKILL' }, () => {});
start('pdftoppm', ['-r', '900', '-png', '-gray', dir + '/scan.pdf', dir + '/page']);
if (image) start('tesseract', [image, '-', '-l', 'eng', '--psm', '1']);
setInterval(() => {}, 1000);
`,
    );
  }, 60_000);
  afterAll(() => {
    child?.kill('SIGKILL');
    for (const [pid] of processesWith(dir ?? '/nonexistent')) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL of the replica during OCR: no pdftoppm or tesseract remains', async () => {
    const image = readdirSync(dir).find((f) => f.startsWith('one') && f.endsWith('.png'))!;
    const tools = hasTesseract ? ['pdftoppm', 'tesseract'] : ['pdftoppm'];
    const args = [join(dir, 'replica.js'), dir, ...(hasTesseract ? [join(dir, image)] : [])];
    child = spawn(process.execPath, args, { stdio: 'ignore' });
    const names = () => processesWith(dir).map(([, cmd]) => (cmd.includes('tesseract') ? 'tesseract' : 'pdftoppm'));
    await waitFor(() => names().length === tools.length, 10_000);
    expect(names().sort()).toEqual(tools);
    child.kill('SIGKILL');
    await new Promise<void>((resolve) =>
      child!.exitCode !== null || child!.signalCode ? resolve() : child!.once('exit', () => resolve()),
    );
    // far below the tools' own time limit (120 s): only the watchdog can have ended them this fast
    await waitFor(() => processesWith(dir).length === 0, 5_000);
    expect(processesWith(dir)).toEqual([]);
  }, 60_000);
});
