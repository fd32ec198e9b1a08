import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { en } from '../src/i18n/en';
import { ru } from '../src/i18n/ru';

export const ROOT = resolve(__dirname, '../../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of every flow land here (the test output). */
export const OUTPUT = join(ROOT, 'test-results', 'console');
export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function requireBuild(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH. The console's browser tests drive the system browser.`,
    );
  for (const f of ['dist/apps/api/src/main.js', 'dist/console/index.html'])
    if (!existsSync(join(ROOT, f)))
      throw new Error(`${f} is missing: run \`npm run build\` before the console's browser tests`);
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => ok(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

export interface Gateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * The real built server (`node dist/apps/api/src/main.js`) on the embedded default, in a fresh DATA_DIR;
 * on `fixedPort` when its URL must be known beforehand (e.g. in its own configuration).
 */
export async function startGateway(env: Record<string, string> = {}, fixedPort?: number): Promise<Gateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-console-e2e-'));
  const port = fixedPort ?? (await freePort());
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'DATABASE_SCHEMA', 'REDIS_KEY_PREFIX', 'BOOTSTRAP_API_KEY'])
    delete childEnv[k];
  Object.assign(childEnv, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    DEV_WORKSPACE: 'false',
    ...env,
  });
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist/apps/api/src/main.js')], {
    env: childEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${stderr}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 240) throw new Error(`the gateway did not start in 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface Session {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A fresh browser context (own cookies and storage) in a given language and color scheme. */
export async function openSession(
  browser: Browser,
  opts: {
    locale?: 'en' | 'ru';
    colorScheme?: 'light' | 'dark';
    /** false: no theme is stored beforehand, so the console follows the OS preference (colorScheme) */
    pickTheme?: boolean;
    viewport?: { width: number; height: number };
  } = {},
): Promise<Session> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 860 },
    locale: opts.locale === 'ru' ? 'ru-RU' : 'en-US',
    colorScheme: opts.colorScheme ?? 'light',
    acceptDownloads: true,
  });
  await context.addInitScript(
    ([lang, scheme]) => {
      if (!localStorage.getItem('console.lang')) localStorage.setItem('console.lang', lang);
      if (scheme && !localStorage.getItem('console.theme')) localStorage.setItem('console.theme', scheme);
    },
    [opts.locale ?? 'en', opts.pickTheme === false ? '' : (opts.colorScheme ?? 'light')],
  );
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // a Content-Security-Policy violation is a failure of the page
  page.on('console', (m) => m.type() === 'error' && /Content Security Policy/i.test(m.text()) && errors.push(m.text()));
  return { context, page, errors };
}

/**
 * A screenshot of the page state, after its quality check (`verify`: axe-core, and in Russian no
 * English words left); `check: false` only for pages that are not the console's (a payment provider's).
 */
export async function shot(page: Page, name: string, opts: VerifyOptions & { check?: boolean } = {}): Promise<string> {
  if (opts.check !== false) await verify(page, name, opts);
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.evaluate(() => window.scrollTo(0, 0)); // a full-page capture from the top keeps the header in place
  await page.waitForTimeout(300); // let charts finish their entry animation
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Admin API calls of the test's own setup (the same ones the operator page makes). */
export async function admin<T>(gw: Gateway, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A member of the team with a password: invited by the operator, the invitation accepted. */
export async function addMember(gw: Gateway, teamId: string, email: string, role: string, password: string) {
  const inv = await admin<{ token: string }>(gw, 'POST', `/api/v1/teams/${teamId}/invitations`, { email, role });
  const res = await fetch(`${gw.url}/api/v1/invitations/${inv.token}/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: email.split('@')[0], password }),
  });
  if (!res.ok) throw new Error(`accept: ${res.status} ${await res.text()}`);
}

/** Signs in on the sign-in page with e-mail and password (either interface language). */
export async function signInWithPassword(page: Page, gw: Gateway, email: string, password: string) {
  await page.goto(`${gw.url}/`);
  await page.getByLabel(/^(Email|Эл\. почта|E-mail)/).fill(email);
  await page.getByLabel(/^(Password|Пароль)/).fill(password);
  await page.getByRole('button', { name: /^(Sign in|Войти)$/ }).click();
}

/** One page state's accessibility check: the violations axe-core finds, saved with the test output. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (WCAG 2 A/AA rules) on the page as it is now, writes the result to
 * test-results/console/axe-<name>.json and returns the serious and critical violations.
 * The script is evaluated through the DevTools protocol, so the page's Content-Security-Policy stays on.
 */
export async function axe(page: Page, name: string): Promise<AxeViolation[]> {
  const source = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  await page.waitForTimeout(250); // transitions (menus, tooltips) settle before colours are measured
  const result = (await page.evaluate(async () => {
    const w = window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } };
    return w.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
  })) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, `axe-${name}.json`), JSON.stringify(result.violations, null, 2));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

/** Every word of a dictionary's strings (3 letters or more, lower case), placeholders left out. */
function dictionaryWords(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string')
    for (const w of value.replace(/\{\{[^}]*\}\}/g, ' ').match(/[A-Za-z]{3,}/g) ?? []) out.add(w.toLowerCase());
  else if (value && typeof value === 'object') for (const v of Object.values(value)) dictionaryWords(v, out);
  return out;
}

/**
 * The English interface words: the words of the en dictionary that the ru dictionary does not use
 * itself (product and protocol names such as API, OpenAI, curl, webhook stay Latin in Russian too).
 */
const ENGLISH_UI_WORDS = (() => {
  const words = dictionaryWords(en);
  for (const w of dictionaryWords(ru)) words.delete(w);
  return words;
})();

/**
 * The English interface words visible on a Russian page: its text nodes (and placeholders and
 * accessible names given as attributes) outside code, inputs and values marked translate="no",
 * with e-mails, URLs and identifiers (anything with a digit, _, -, . or /) removed first, compared
 * with the en dictionary's words. `allow`: data of the test shown as such (a team called "default").
 */
const DATA_WORDS = new Set<string>();

/** Latin words a test file's data uses as names (a team called "default"): not interface text. */
export function allowDataWords(...words: string[]): void {
  for (const w of words) DATA_WORDS.add(w.toLowerCase());
}

export async function englishLeftovers(page: Page, allow: string[] = []): Promise<string[]> {
  const texts = await page.evaluate(() => {
    const skip = 'code, pre, kbd, samp, textarea, script, style, [translate="no"]';
    const out: string[] = [];
    const visible = (el: Element) =>
      typeof (el as HTMLElement).checkVisibility === 'function' ? (el as HTMLElement).checkVisibility() : true;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const el = walker.currentNode.parentElement;
      if (!el || el.closest(skip) || !visible(el)) continue;
      out.push(walker.currentNode.textContent ?? '');
    }
    for (const el of Array.from(document.body.querySelectorAll('[placeholder], [aria-label]'))) {
      if (el.closest(skip) || !visible(el)) continue;
      out.push(el.getAttribute('placeholder') ?? '', el.getAttribute('aria-label') ?? '');
    }
    return out;
  });
  const allowed = new Set([...DATA_WORDS, ...allow.map((w) => w.toLowerCase())]);
  const found = new Set<string>();
  for (const text of texts) {
    const cleaned = text
      .replace(/\S+@\S+/g, ' ') // e-mails
      .replace(/\b[a-z]+:\/\/\S+/gi, ' ') // URLs
      .replace(/\S*(?:\d|[A-Za-z0-9][_./\\:-]+[A-Za-z0-9])\S*/g, ' '); // identifiers (docs__echo), model names, paths, numbers
    for (const w of cleaned.match(/[A-Za-z]{3,}/g) ?? [])
      if (ENGLISH_UI_WORDS.has(w.toLowerCase()) && !allowed.has(w.toLowerCase())) found.add(w);
  }
  return [...found].sort();
}

export interface VerifyOptions {
  /** Latin words that are the test's data, not interface text (checked on Russian pages only) */
  allow?: string[];
}

/**
 * One page state's quality check: no serious or critical axe-core violation (the result saved as
 * axe-<name>.json) and, when the page is in Russian (<html lang="ru">), no English interface word.
 */
export async function verify(page: Page, name: string, opts: VerifyOptions = {}): Promise<void> {
  const violations = await axe(page, name);
  if (violations.length) throw new Error(`axe-core on ${name}: ${JSON.stringify(violations, null, 2)}`);
  if ((await page.evaluate(() => document.documentElement.lang)) === 'ru') {
    const english = await englishLeftovers(page, opts.allow);
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, `english-${name}.json`), JSON.stringify(english, null, 2));
    if (english.length) throw new Error(`English words left on the Russian page ${name}: ${english.join(', ')}`);
  }
}
