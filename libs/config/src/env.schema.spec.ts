import {
  ConfigError,
  missingProviderCredential,
  parseEnv as parseServiceEnv,
  ProviderEnvDeclaration,
} from './env.schema';

/** Provider declarations as the provider definitions (libs/providers) hand them to the configuration. */
const PROVIDERS: ProviderEnvDeclaration[] = [
  { name: 'openai', env: { prefix: 'OPENAI', defaultBaseUrl: 'https://api.openai.com/v1' } },
  { name: 'deepseek', env: { prefix: 'DEEPSEEK', defaultBaseUrl: 'https://api.deepseek.com/v1' } },
  { name: 'anthropic', env: { prefix: 'ANTHROPIC', defaultBaseUrl: 'https://api.anthropic.com' } },
  { name: 'gemini', env: { prefix: 'GEMINI', defaultBaseUrl: 'https://generativelanguage.googleapis.com' } },
];
const parseEnv = (env: Record<string, string | undefined>) => parseServiceEnv(env, PROVIDERS);

describe('parseEnv', () => {
  it('reads the variables of the providers it is given, and only those', () => {
    expect(parseServiceEnv({ OPENAI_API_KEY: 'k' }).providers).toEqual({});
    const c = parseServiceEnv({ OPENAI_API_KEY: 'k', ACME_API_KEY: 'a', ACME_TIMEOUT_MS: '500' }, [
      { name: 'acme', env: { prefix: 'ACME', defaultBaseUrl: 'https://api.acme.test/v1', defaultMaxRetries: 4 } },
    ]);
    expect(c.providers).toEqual({
      acme: {
        apiKey: 'a',
        baseUrl: 'https://api.acme.test/v1',
        timeoutMs: 500,
        inlineImages: false,
        maxRetries: 4,
        extra: {},
        credentials: [['API_KEY']],
      },
    });
    expect(() =>
      parseServiceEnv({ ACME_TIMEOUT_MS: 'soon' }, [
        { name: 'acme', env: { prefix: 'ACME', defaultBaseUrl: 'https://x' } },
      ]),
    ).toThrow('ACME_TIMEOUT_MS must be an integer');
  });

  it("reads a provider's own variables (extra): validated, defaulted, and its credential alternatives", () => {
    const acme: ProviderEnvDeclaration = {
      name: 'acme',
      env: {
        prefix: 'ACME',
        defaultBaseUrl: 'https://api.acme.test/v1',
        extra: [
          { name: 'IAM_TOKEN' },
          { name: 'FOLDER_ID' },
          { name: 'SCOPE', oneOf: ['PERS', 'B2B'], default: 'PERS' },
          { name: 'OAUTH_URL', kind: 'url', default: 'https://auth.acme.test/oauth' },
          { name: 'CA_FILE', kind: 'file' },
        ],
        credentials: [
          ['API_KEY', 'FOLDER_ID'],
          ['IAM_TOKEN', 'FOLDER_ID'],
        ],
      },
    };
    const read = (env: Record<string, string>) => parseServiceEnv(env, [acme]).providers.acme;
    expect(read({}).extra).toEqual({ SCOPE: 'PERS', OAUTH_URL: 'https://auth.acme.test/oauth' });
    expect(
      read({
        ACME_FOLDER_ID: 'b1g',
        ACME_SCOPE: 'B2B',
        ACME_OAUTH_URL: 'http://127.0.0.1:9/oauth/',
        ACME_CA_FILE: __filename,
      }).extra,
    ).toEqual({ FOLDER_ID: 'b1g', SCOPE: 'B2B', OAUTH_URL: 'http://127.0.0.1:9/oauth', CA_FILE: __filename });
    expect(() => read({ ACME_SCOPE: 'CORP' })).toThrow('ACME_SCOPE must be one of PERS, B2B, got "CORP"');
    expect(() => read({ ACME_OAUTH_URL: 'ftp://x' })).toThrow('ACME_OAUTH_URL must use http: or https:');
    expect(() => read({ ACME_CA_FILE: '/nonexistent/ca.pem' })).toThrow('ACME_CA_FILE must name a readable file');

    expect(missingProviderCredential('ACME', read({}))).toBe(
      'ACME_API_KEY and ACME_FOLDER_ID or ACME_IAM_TOKEN and ACME_FOLDER_ID',
    );
    expect(missingProviderCredential('ACME', read({ ACME_API_KEY: 'k' }))).toBe('ACME_FOLDER_ID');
    expect(missingProviderCredential('ACME', read({ ACME_FOLDER_ID: 'f' }))).toBe('ACME_API_KEY or ACME_IAM_TOKEN');
    expect(missingProviderCredential('ACME', read({ ACME_IAM_TOKEN: 't', ACME_FOLDER_ID: 'f' }))).toBeNull();
    const plain = parseServiceEnv({}, PROVIDERS).providers.openai;
    expect(missingProviderCredential('OPENAI', plain)).toBe('OPENAI_API_KEY');
    expect(missingProviderCredential('OPENAI', { ...plain, apiKey: 'k' })).toBeNull();
  });

  it('applies documented defaults on an empty environment', () => {
    const c = parseEnv({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir).toBe('./data');
    expect(c.redisUrl).toBeUndefined();
    expect(c.adminToken).toBeUndefined();
    expect(c.bootstrapBalanceRub).toBe(0);
    expect(c.logLevel).toBe('info');
    expect(c.rerankCacheTtlSeconds).toBe(43200);
    expect(c.providers.openai.baseUrl).toBe('https://api.openai.com/v1');
    // a hold outlives the longest request: provider timeout 120 s + shutdown grace 25 s + 30 s
    expect(c.reservationTtlSeconds).toBe(175);
    expect(c.integrationSecretKey).toBeUndefined();
    expect(c.integrationPollMs).toBe(10_000);
    expect(c.ocr).toEqual({
      enabled: true,
      maxPages: 50,
      timeoutMs: 120_000,
      memoryMb: 1024,
      tesseractPath: undefined,
      pdftoppmPath: undefined,
    });
  });

  it('OCR settings: values read, tool paths kept, out-of-range values refused', () => {
    const c = parseEnv({
      OCR_ENABLED: 'false',
      OCR_MAX_PAGES: '5',
      OCR_TIMEOUT_MS: '3000',
      OCR_MEMORY_MB: '256',
      TESSERACT_PATH: '/opt/ocr/tesseract',
      PDFTOPPM_PATH: '/opt/ocr/pdftoppm',
    });
    expect(c.ocr).toEqual({
      enabled: false,
      maxPages: 5,
      timeoutMs: 3000,
      memoryMb: 256,
      tesseractPath: '/opt/ocr/tesseract',
      pdftoppmPath: '/opt/ocr/pdftoppm',
    });
    expect(() => parseEnv({ OCR_MAX_PAGES: '0' })).toThrow(/OCR_MAX_PAGES/);
    expect(() => parseEnv({ OCR_ENABLED: 'maybe' })).toThrow(/OCR_ENABLED must be true or false/);
  });

  it('the default hold follows the slowest provider timeout and the grace', () => {
    expect(parseEnv({ ANTHROPIC_TIMEOUT_MS: '600000', SHUTDOWN_GRACE_MS: '10000' }).reservationTtlSeconds).toBe(640);
    expect(parseEnv({ RESERVATION_TTL_SECONDS: '90' }).reservationTtlSeconds).toBe(90);
  });

  it('credit grants are on by default on both databases; their TTL is bounded', () => {
    expect(parseEnv({}).billingCreditGrants).toBe(true);
    expect(parseEnv({ DATABASE_URL: 'postgres://db/x' }).billingCreditGrants).toBe(true);
    expect(parseEnv({ DATABASE_URL: 'postgres://db/x', BILLING_CREDIT_GRANTS: 'false' }).billingCreditGrants).toBe(
      false,
    );
    expect(parseEnv({ BILLING_CREDIT_GRANTS: 'false' }).billingCreditGrants).toBe(false);
    expect(parseEnv({}).creditGrantTtlSeconds).toBe(30);
    expect(() => parseEnv({ CREDIT_GRANT_TTL_SECONDS: '1' })).toThrow(/CREDIT_GRANT_TTL_SECONDS/);
    expect(parseEnv({}).billingDurability).toBe('durable');
    expect(parseEnv({}).billingFlushMs).toBe(50);
    expect(parseEnv({ BILLING_DURABILITY: 'batched', BILLING_FLUSH_MS: '20' })).toMatchObject({
      billingDurability: 'batched',
      billingFlushMs: 20,
    });
    expect(() => parseEnv({ BILLING_DURABILITY: 'fast' })).toThrow(/BILLING_DURABILITY/);
    expect(() => parseEnv({ BILLING_DURABILITY: 'batched', BILLING_CREDIT_GRANTS: 'off' })).toThrow(/credit grants/);
  });

  it('reads values and strips trailing slashes from URLs', () => {
    const c = parseEnv({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h:5432/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      OPENAI_BASE_URL: 'http://x/v1/',
      BOOTSTRAP_BALANCE_RUB: '100.5',
    });
    expect(c.port).toBe(8080);
    expect(c.databaseUrl).toBe('postgres://u@h:5432/db');
    expect(c.providers.openai.baseUrl).toBe('http://x/v1');
    expect(c.bootstrapBalanceRub).toBe(100.5);
  });

  it('rate-limit defaults: unset = unlimited, otherwise positive integers', () => {
    const none = parseEnv({});
    expect([
      none.defaultKeyRpmLimit,
      none.defaultKeyTpmLimit,
      none.defaultTeamRpmLimit,
      none.defaultTeamTpmLimit,
    ]).toEqual([undefined, undefined, undefined, undefined]);
    const set = parseEnv({
      DEFAULT_KEY_RPM_LIMIT: '60',
      DEFAULT_KEY_TPM_LIMIT: '100000',
      DEFAULT_TEAM_RPM_LIMIT: '600',
      DEFAULT_TEAM_TPM_LIMIT: ' ',
    });
    expect([set.defaultKeyRpmLimit, set.defaultKeyTpmLimit, set.defaultTeamRpmLimit, set.defaultTeamTpmLimit]).toEqual([
      60,
      100000,
      600,
      undefined,
    ]);
  });

  it.each([
    [{ DEFAULT_KEY_RPM_LIMIT: '0' }, /DEFAULT_KEY_RPM_LIMIT must be between 1/],
    [{ DEFAULT_TEAM_TPM_LIMIT: '1.5' }, /DEFAULT_TEAM_TPM_LIMIT must be an integer/],
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL is not a valid URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN must be at least 16/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN must be at least 16/],
    [{ BOOTSTRAP_BALANCE_RUB: '-1' }, /BOOTSTRAP_BALANCE_RUB/],
    [{ AUTH_CACHE_TTL_SECONDS: '30' }, /AUTH_CACHE_TTL_SECONDS must be between 0 and 5/],
    [{ INTEGRATION_SECRET_KEY: 'too-short' }, /INTEGRATION_SECRET_KEY must be at least 32/],
    [{ INTEGRATION_POLL_MS: '10' }, /INTEGRATION_POLL_MS must be between/],
    [{ ANTHROPIC_MAX_RETRIES: '-1' }, /ANTHROPIC_MAX_RETRIES must be between 0 and 10/],
    [{ GEMINI_MAX_RETRIES: 'two' }, /GEMINI_MAX_RETRIES must be an integer/],
    [{ DEPLOYMENT_COOLDOWN_SECONDS: '1.5' }, /DEPLOYMENT_COOLDOWN_SECONDS must be an integer/],
    [{ MODEL_ALIASES: 'claude-latest' }, /MODEL_ALIASES must be comma-separated name=model pairs/],
    [{ MODEL_ALIASES: 'a=b,a=c' }, /MODEL_ALIASES names "a" twice/],
  ])('fails fast on %j', (env, message) => {
    expect(() => parseEnv(env)).toThrow(ConfigError);
    expect(() => parseEnv(env)).toThrow(message);
  });

  it('MODEL_ALIASES: name=catalog-key pairs, blanks around them ignored; unset = none', () => {
    expect(parseEnv({}).modelAliases).toEqual({});
    expect(
      parseEnv({
        MODEL_ALIASES: ' claude-sonnet-4-20250514=claude-sonnet-4 , claude-3-5-haiku-latest = claude-3-5-haiku,',
      }).modelAliases,
    ).toEqual({ 'claude-sonnet-4-20250514': 'claude-sonnet-4', 'claude-3-5-haiku-latest': 'claude-3-5-haiku' });
  });

  it('resilience: <PROVIDER>_MAX_RETRIES per provider (default 2), backoff and cooldown settings', () => {
    const d = parseEnv({});
    for (const p of ['openai', 'deepseek', 'anthropic', 'gemini'] as const) expect(d.providers[p].maxRetries).toBe(2);
    expect(d.resilience).toEqual({
      retryBaseDelayMs: 250,
      retryMaxDelayMs: 4000,
      retryAfterMaxMs: 10000,
      deploymentCooldownMs: 30000,
    });
    const c = parseEnv({
      DEEPSEEK_MAX_RETRIES: '0',
      OPENAI_MAX_RETRIES: '5',
      RETRY_AFTER_MAX_MS: '2000',
      DEPLOYMENT_COOLDOWN_SECONDS: '0',
      VLLM_EU_KEY: ' k ',
      lower_case: 'x',
    });
    expect([c.providers.deepseek.maxRetries, c.providers.openai.maxRetries, c.providers.gemini.maxRetries]).toEqual([
      0, 5, 2,
    ]);
    expect(c.resilience).toMatchObject({ retryAfterMaxMs: 2000, deploymentCooldownMs: 0 });
    // variables a catalog deployment may name: upper-case, non-empty, trimmed
    expect(c.catalogVariables.VLLM_EU_KEY).toBe('k');
    expect(c.catalogVariables.lower_case).toBeUndefined();
  });

  it('authentication throttle and TRUST_PROXY: defaults, values, refusals', () => {
    const d = parseEnv({});
    expect([d.authFailureLimit, d.authFailureWindowSeconds, d.trustProxy]).toEqual([20, 60, undefined]);
    const c = parseEnv({ AUTH_FAILURE_LIMIT: '0', AUTH_FAILURE_WINDOW_SECONDS: '300', TRUST_PROXY: 'true' });
    expect([c.authFailureLimit, c.authFailureWindowSeconds, c.trustProxy]).toEqual([0, 300, true]);
    expect(parseEnv({ TRUST_PROXY: 'false' }).trustProxy).toBeUndefined();
    expect(parseEnv({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(parseEnv({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback,10.0.0.0/8');
    expect(() => parseEnv({ TRUST_PROXY: 'yes please' })).toThrow(ConfigError);
    expect(() => parseEnv({ AUTH_FAILURE_WINDOW_SECONDS: '0' })).toThrow(ConfigError);
  });

  it('documents: Moscow time and 3 close days by default, a zone must exist', () => {
    expect(parseEnv({}).documents).toEqual({ timeZone: 'Europe/Moscow', actsCloseDays: 3 });
    expect(parseEnv({ DOCUMENTS_TZ: 'Asia/Yekaterinburg', ACTS_CLOSE_DAYS: '0' }).documents).toEqual({
      timeZone: 'Asia/Yekaterinburg',
      actsCloseDays: 0,
    });
    expect(() => parseEnv({ DOCUMENTS_TZ: 'Mars/Olympus' })).toThrow(/DOCUMENTS_TZ/);
    expect(() => parseEnv({ ACTS_CLOSE_DAYS: '40' })).toThrow(/ACTS_CLOSE_DAYS/);
  });
});
