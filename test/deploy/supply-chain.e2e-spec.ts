/**
 * The supply-chain records agree with the lock file: docs/sbom.cdx.json lists exactly the packages
 * `npm ci --omit=dev` installs (name, version, integrity), and every package of the lock with an
 * install script has been reviewed in package.json `allowScripts`. No app, no network.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = <T>(file: string): T => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
  integrity?: string;
  hasInstallScript?: boolean;
  os?: string[];
}
interface Component {
  name: string;
  group?: string;
  version: string;
  purl: string;
  hashes?: { alg: string; content: string }[];
}

describe('supply chain', () => {
  const lock = read<{ packages: Record<string, LockEntry> }>('package-lock.json');
  const pkg = read<{ name: string; allowScripts?: Record<string, boolean> }>('package.json');
  const nameOf = (where: string) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);

  it('docs/sbom.cdx.json is the CycloneDX SBOM of the production tree of the lock file', () => {
    const bom = read<{
      bomFormat: string;
      specVersion: string;
      metadata: { component: { name: string } };
      components: Component[];
    }>('docs/sbom.cdx.json');
    expect([bom.bomFormat, bom.metadata.component.name]).toEqual(['CycloneDX', pkg.name]);
    // what npm ci --omit=dev installs: not dev, not a platform build stub of another machine
    const production = Object.entries(lock.packages).filter(
      ([where, e]) =>
        where !== '' && !e.dev && !e.link && e.version && !(e.optional && e.os && !e.os.includes(process.platform)),
    );
    const listed = new Set(bom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`));
    const missing = production.map(([where, e]) => `${nameOf(where)}@${e.version}`).filter((id) => !listed.has(id));
    expect(missing).toEqual([]);
    const dev = Object.entries(lock.packages)
      .filter(([, e]) => e.dev)
      .map(([where, e]) => `${nameOf(where)}@${e.version}`)
      .filter((id) => listed.has(id) && !production.some(([w, e]) => `${nameOf(w)}@${e.version}` === id));
    expect(dev).toEqual([]);
    // each component carries the lock's integrity hash
    const sha512 = (c: Component) => c.hashes?.find((h) => h.alg === 'SHA-512')?.content;
    const unhashed = bom.components.filter((c) => !sha512(c)).map((c) => c.purl);
    expect(unhashed).toEqual([]);
  });

  it('every install script in the lock file is reviewed in allowScripts', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, e]) => e.hasInstallScript)
      .map(([where]) => nameOf(where));
    expect(withScripts.length).toBeGreaterThan(0);
    const unreviewed = withScripts.filter((name) => pkg.allowScripts?.[name] === undefined);
    expect(unreviewed).toEqual([]);
  });
});
