import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_USER_HINT } from './accounts-bootstrap.service';

describe('what to do when nobody can sign in', () => {
  const root = join(__dirname, '..', '..', '..');
  const read = (path: string) => readFileSync(join(root, path), 'utf8').replace(/\s*\n\s*/g, ' ');

  it('the server log, the README and the sign-in page say it word for word', () => {
    expect(NO_USER_HINT).toMatch(/BOOTSTRAP_OPERATOR_EMAIL and BOOTSTRAP_OPERATOR_PASSWORD/);
    expect(read('README.md')).toContain(NO_USER_HINT);
    expect(read('apps/console/src/i18n/en.ts')).toContain(NO_USER_HINT);
  });
});
