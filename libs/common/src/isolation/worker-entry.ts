import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** TypeScript sources are compiled on load inside the worker with SWC (the built app has the .js). */
const SOURCE_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { paths } = JSON.parse(require('node:fs').readFileSync(workerData.tsconfig, 'utf8')).compilerOptions;
const { addHook } = require(workerData.pirates);
const { transformSync } = require(workerData.swc);
addHook(
  (code, filename) =>
    transformSync(code, {
      filename,
      sourceMaps: 'inline',
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
        baseUrl: workerData.root,
        paths,
      },
      module: { type: 'commonjs', ignoreDynamic: true },
    }).code,
  { exts: ['.ts'] },
);
require(workerData.entry);
`;

/**
 * How to start the worker thread whose entry module is `name` in directory `dir` (a caller passes
 * its own `__dirname`): the built app runs the compiled `<name>.js`; from sources (tests) there is
 * only the `.ts`, which the worker compiles on load with SWC through a require hook.
 */
export function workerEntry(
  dir: string,
  name: string,
): { entry: string; options: { eval?: boolean; workerData?: unknown } } {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return { entry: compiled, options: {} };
  const req = createRequire(join(dir, `${name}.ts`));
  const root = join(__dirname, '..', '..', '..', '..');
  return {
    entry: SOURCE_BOOTSTRAP,
    options: {
      eval: true,
      workerData: {
        entry: join(dir, `${name}.ts`),
        root,
        tsconfig: join(root, 'tsconfig.json'),
        pirates: req.resolve('pirates'),
        swc: req.resolve('@swc/core'),
      },
    },
  };
}
