/**
 * Every way the gateway is started runs it with the same node flags: `npm start`, `npm run
 * start:prod` and the container image's command. `--v8-pool-size=0` sizes V8's garbage-collection
 * helper threads from the CPUs (docs/decisions/v8-helper-threads-from-the-cpus.md); the bench
 * reads the flags from `npm start`'s script, so it measures the gateway as it is started. A real
 * process started with the flag has the thread count it promises.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const FLAGS = ['--v8-pool-size=0'];

// the bench's own parser of a command line: the flags before dist/apps/api/src/main.js
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bench = require(join(ROOT, 'scripts/bench/lib.js')) as {
  gatewayFlagsOf: (command: string) => string[];
  gatewayStartFlags: () => string[];
};

describe('the node flags the gateway is started with', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;

  it.each(['start', 'start:prod'])('npm run %s', (name) => {
    expect(bench.gatewayFlagsOf(scripts[name])).toEqual(FLAGS);
  });

  it("the container image's command", () => {
    const cmd = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('CMD '))
      .pop()!;
    const argv = JSON.parse(cmd.slice('CMD '.length)) as string[];
    expect(bench.gatewayFlagsOf(argv.join(' '))).toEqual(FLAGS);
  });

  it('the bench starts the gateway with them', () => {
    expect(bench.gatewayStartFlags()).toEqual(FLAGS);
  });

  it('with --v8-pool-size=0 node keeps one V8 helper thread fewer than the CPUs (at least one)', () => {
    const threads = (flags: string[]) =>
      Number(
        execFileSync(
          process.execPath,
          [...flags, '-e', "console.log(require('fs').readdirSync('/proc/self/task').length)"],
          {
            encoding: 'utf8',
          },
        ).trim(),
      );
    const fixed = threads([]);
    const sized = threads(FLAGS);
    // node's default is four helpers: the difference is what the flag took away (or added)
    expect(fixed - sized).toBe(4 - Math.max(1, availableParallelism() - 1));
  });
});
