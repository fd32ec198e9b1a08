import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_ACTIONS, AUDIT_OBJECT_TYPES } from './audit-actions';

const LIBS = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'migrations' && name !== '__fixtures__') out.push(...sources(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) out.push(p);
  }
  return out;
}

/**
 * The audit actions the code writes: `action: 'x.y'`, ternaries choosing one (on the line or the
 * lines after `action =` / `action:`), and the helpers that take the action as an argument
 * (`recordProject(m, 'project.create', …)`, `audit(actor, 'catalog.model.update', …)`).
 */
function emitted(): { actions: Set<string>; targets: Set<string> } {
  const actions = new Set<string>();
  const targets = new Set<string>();
  const literal = /'([a-z_]+(?:\.[a-z_]+)+)'/g;
  for (const file of sources(LIBS)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    let inAction = 0;
    for (const line of lines) {
      const take = () => {
        for (const m of line.matchAll(literal)) actions.add(m[1]);
      };
      if (/\baction\s*[:=]/.test(line) && !/action\s*:\s*(string|'masked'|'blocked'|'none')/.test(line)) {
        take();
        // a ternary over the following lines: `action =` then `? 'a'` / `: 'b'` lines
        inAction = /[:=]$/.test(line.trim()) ? 8 : 0;
      } else if (inAction > 0) {
        if (/^\s*[?:]/.test(line)) take();
        inAction = /[;,]$/.test(line.trim()) ? 0 : inAction - 1;
      }
      if (/\b(record\w*|audit)\(\s*(m|actor)\s*,/.test(line)) take();
      for (const m of line.matchAll(/targetType:\s*'([a-z_]+)'/g)) targets.add(m[1]);
    }
  }
  return { actions, targets };
}

describe('audit actions', () => {
  const found = emitted();

  it('the scan finds the actions written in every style (a literal, a ternary, a helper argument)', () => {
    for (const a of ['api_key.create', 'member.leave', 'user.operator_change', 'project.create', 'document.retry'])
      expect(found.actions).toContain(a);
    expect(found.actions.size).toBeGreaterThan(40);
  });

  it('every action the code writes is listed (and so translated by the console)', () => {
    expect([...found.actions].filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a)).sort()).toEqual([]);
  });

  it('every object type the code writes is listed', () => {
    expect([...found.targets].filter((t) => !(AUDIT_OBJECT_TYPES as readonly string[]).includes(t)).sort()).toEqual([]);
  });
});
