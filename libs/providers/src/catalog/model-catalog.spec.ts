import { PROVIDER_NAMES } from '../provider-definitions';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogError, loadCatalog } from './model-catalog';

const PROVIDERS = [...PROVIDER_NAMES];

describe('model catalog', () => {
  it('built-in catalog is valid and covers every provider and kind the gateway needs', () => {
    const models = loadCatalog(undefined, PROVIDERS);
    const byKey = new Map(models.map((m) => [m.key, m]));
    expect(byKey.get('text-embedding-3-small')).toMatchObject({ kind: 'embedding', dimensions: 1536 });
    expect(byKey.get('text-embedding-3-large')).toMatchObject({ kind: 'embedding', dimensions: 3072 });
    expect(byKey.get('deepseek-reasoner')).toMatchObject({ provider: 'deepseek', kind: 'chat' });
    expect(byKey.get('claude-sonnet-4')?.pricing.cache_read_rub_per_1m).toBeGreaterThan(0);
    expect(byKey.get('claude-sonnet-4')?.pricing.cache_write_rub_per_1m).toBeGreaterThan(0);
    for (const k of ['gemini-2.5-pro', 'gemini-2.5-flash']) expect(byKey.get(k)?.full_context).toBe(true);
    expect(models.some((m) => m.kind === 'image')).toBe(true);
    expect(byKey.get('local')).toMatchObject({ provider: 'local', kind: 'chat' });
    expect(byKey.get('yandexgpt')).toMatchObject({ provider: 'yandex', kind: 'chat', upstream_model: 'yandexgpt' });
    expect(byKey.get('yandex-embeddings')).toMatchObject({ kind: 'embedding', dimensions: 256 });
    expect(new Set(models.map((m) => m.provider))).toEqual(new Set(PROVIDERS));
  });

  it('MODELS_FILE adds, overrides (partially) and disables entries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cat-'));
    const file = join(dir, 'models.yaml');
    writeFileSync(
      file,
      [
        'models:',
        '  - key: my-vllm',
        '    provider: openai',
        '    upstream_model: meta-llama/Llama-3.1-8B',
        '    kind: chat',
        '    context_window: 8192',
        '    pricing: { input_rub_per_1m: 5, output_rub_per_1m: 10 }',
        '  - key: gpt-4o',
        '    pricing: { input_rub_per_1m: 999 }',
        '  - key: gpt-4o-mini',
        '    disabled: true',
      ].join('\n'),
    );
    const models = new Map(loadCatalog(file, PROVIDERS).map((m) => [m.key, m]));
    expect(models.get('my-vllm')).toMatchObject({
      kind: 'chat',
      context_window: 8192,
      max_output_tokens: 4096,
      pricing: { input_rub_per_1m: 5, output_rub_per_1m: 10, cache_read_rub_per_1m: null },
    });
    expect(models.get('gpt-4o')?.pricing).toMatchObject({ input_rub_per_1m: 999, output_rub_per_1m: 1000 });
    expect(models.has('gpt-4o-mini')).toBe(false);
  });

  it('rejects bad entries with a message naming the entry and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cat-'));
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          {
            key: 'x',
            provider: 'openai',
            upstream_model: 'x',
            kind: 'chat',
            context_window: -1,
            pricing: { input_rub_per_1m: 1 },
          },
        ],
      }),
    );
    expect(() => loadCatalog(file)).toThrow(CatalogError);
    expect(() => loadCatalog(file)).toThrow(/models\[0\] \(x\): "context_window" must be >= 1/);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          {
            key: 'y',
            provider: 'nope',
            upstream_model: 'y',
            kind: 'chat',
            context_window: 10,
            pricing: { input_rub_per_1m: 1 },
          },
        ],
      }),
    );
    expect(() => loadCatalog(file, PROVIDERS)).toThrow(/unknown provider "nope"/);
  });

  it('fallbacks and deployments: parsed with defaults, validated against the catalog', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cat-'));
    const file = join(dir, 'models.yaml');
    const write = (lines: string[]) => writeFileSync(file, ['models:', ...lines].join('\n'));
    write([
      '  - key: gpt-4o',
      '    fallbacks: [gpt-4o-mini, claude-sonnet-4]',
      '    deployments:',
      '      - { base_url_env: OPENAI_EU_BASE_URL, api_key_env: OPENAI_EU_API_KEY, weight: 3 }',
      '      - { id: main, base_url: "http://10.0.0.5:8000/v1/", weight: 1 }',
    ]);
    const byKey = new Map(loadCatalog(file, PROVIDERS).map((m) => [m.key, m]));
    expect(byKey.get('gpt-4o')).toMatchObject({
      fallbacks: ['gpt-4o-mini', 'claude-sonnet-4'],
      deployments: [
        { id: 'd0', base_url: null, base_url_env: 'OPENAI_EU_BASE_URL', api_key_env: 'OPENAI_EU_API_KEY', weight: 3 },
        { id: 'main', base_url: 'http://10.0.0.5:8000/v1', base_url_env: null, api_key_env: null, weight: 1 },
      ],
    });
    expect(byKey.get('gpt-4o-mini')).toMatchObject({ fallbacks: [], deployments: null });

    const bad: [string[], RegExp][] = [
      [['  - key: gpt-4o', '    fallbacks: [nope]'], /fallback "nope" is not in the catalog/],
      [['  - key: gpt-4o', '    fallbacks: [text-embedding-3-small]'], /is a embedding model, not chat/],
      [['  - key: gpt-4o', '    fallbacks: [gpt-4o]'], /must not name the model itself/],
      [['  - key: gpt-4o', '    deployments: []'], /"deployments" must be a non-empty list/],
      [['  - key: gpt-4o', '    deployments: [{ weight: 0 }]'], /"weight" must be > 0/],
      [['  - key: gpt-4o', '    deployments: [{ api_key_env: "lower" }]'], /upper-case environment variable name/],
      [['  - key: gpt-4o', '    deployments: [{ base_url: "ftp://x" }]'], /http\(s\) URL/],
      [['  - key: gpt-4o', '    deployments: [{ id: a }, { id: a }]'], /duplicate id "a"/],
      [['  - key: local', '    deployments: [{ weight: 1 }]'], /local provider has no deployments/],
    ];
    for (const [lines, message] of bad) {
      write(lines);
      expect(() => loadCatalog(file, PROVIDERS)).toThrow(message);
    }
  });
});
