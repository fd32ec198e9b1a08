/**
 * Builds scripts/bench/fixtures/retrieval-corpus.json, the fixed corpus of the retrieval-quality bench
 * section, from the Debian manual pages installed on the machine that runs it (English pages of
 * /usr/share/man/man1 and man8, Russian pages of /usr/share/man/ru). The JSON is committed, so the
 * bench does not depend on the packages present where it runs; rebuilding it changes the figures.
 *
 * Each page is rendered by `man -l --nh --nj` (no hyphenation, no justification) at 100 columns,
 * overstrikes removed with `col -bx`; the running header and footer lines are dropped, every line is
 * trimmed and the text is cut at the first line boundary after 6,000 characters (NAME, SYNOPSIS and
 * the start of DESCRIPTION). Documents shorter than 400 characters are skipped.
 *
 *   node scripts/bench/build-retrieval-corpus.js
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const MAX_CHARS = 6000;

/**
 * Commands a user of a Linux server asks about: 100 pages in all (a knowledge base holds at most 100
 * documents), most with a hand-written question, the rest distractors close to them.
 */
const EN = (
  'ls cp mv rm mkdir ln chmod chown touch cat head tail sort uniq wc cut tr sed grep find xargs ' +
  'tar gzip bzip2 xz zstd diff patch cmp comm df du free ps kill pgrep nice renice nohup timeout ' +
  'date seq split tee dd md5sum sha256sum base64 hexdump od which uname uptime lscpu journalctl ' +
  'curl wget rsync scp ssh ssh-keygen gpg git-commit git-rebase git-bisect git-stash jq psql ' +
  'pg_dump sqlite3 make tmux less mktemp shred stat top lsblk iconv'
).split(' ');
const RU = (
  'apropos chage chfn chsh fuser gpasswd killall man passwd pstree whatis xxd ' +
  'groupadd groupdel useradd userdel usermod lastlog faillog nologin chpasswd'
).split(' ');

function pagePath(dir, name) {
  for (const section of ['1', '8']) {
    const p = path.join(dir, `man${section}`, `${name}.${section}.gz`);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

function render(file) {
  const raw = execFileSync('man', ['-l', '--nh', '--nj', file], {
    env: { ...process.env, LC_ALL: 'C.UTF-8', MANWIDTH: '100', MAN_KEEP_FORMATTING: '0' },
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 << 20,
  });
  const plain = execFileSync('col', ['-bx'], { input: raw, maxBuffer: 64 << 20 }).toString('utf8');
  const lines = plain.split('\n').map((l) => l.trim());
  // running header (first non-empty line) and footer (last non-empty line)
  while (lines.length && !lines[0]) lines.shift();
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  lines.shift();
  lines.pop();
  let text = '';
  for (const line of lines) {
    if (text.length >= MAX_CHARS) break;
    if (!line && text.endsWith('\n\n')) continue;
    text += line + '\n';
  }
  return text.trim();
}

const docs = [];
for (const [lang, dir, names] of [
  ['en', '/usr/share/man', EN],
  ['ru', '/usr/share/man/ru', RU],
]) {
  for (const name of names) {
    const file = pagePath(dir, name);
    if (!file) {
      console.error(`skip ${lang}/${name}: no manual page`);
      continue;
    }
    const text = render(file);
    if (text.length < 400) {
      console.error(`skip ${lang}/${name}: ${text.length} characters`);
      continue;
    }
    docs.push({ id: `${lang}/${name}`, lang, text });
  }
}
const out = path.join(__dirname, 'fixtures', 'retrieval-corpus.json');
fs.writeFileSync(
  out,
  JSON.stringify(
    { source: 'Debian manual pages (man -l --nh --nj | col -bx), first ~6,000 characters', docs },
    null,
    1,
  ) + '\n',
);
console.log(`${docs.length} documents, ${fs.statSync(out).size} bytes → ${path.relative(process.cwd(), out)}`);
