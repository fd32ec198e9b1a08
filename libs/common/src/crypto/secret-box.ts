import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (integration header values, webhook signing secrets, alert channel secrets).
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url parts; 12-byte random IV, 16-byte tag), so a
 * tampered value or a wrong key fails to open instead of yielding garbage.
 */
export class SecretBox {
  private readonly key: Buffer;

  /** `secret`: any string of ≥ 32 characters; the AES key is its SHA-256. */
  constructor(secret: string) {
    this.key = createHash('sha256').update(secret, 'utf8').digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || iv === undefined || tag === undefined || ct === undefined)
      throw new Error('Not a sealed secret.');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * Seals secrets at rest (integration secrets, alert channel secrets) with the configured key
 * (INTEGRATION_SECRET_KEY) or, without one, a random key created once in the database and shared by
 * replicas: `stored(candidate)` answers the stored key, storing `candidate` when there is none yet.
 */
export class SecretSealer {
  private box: Promise<SecretBox> | null = null;

  constructor(
    private readonly configuredKey: string | undefined,
    private readonly stored: (candidate: string) => Promise<string>,
  ) {}

  async seal(plain: string): Promise<string> {
    return (await this.key()).seal(plain);
  }

  async open(sealed: string): Promise<string> {
    return (await this.key()).open(sealed);
  }

  private key(): Promise<SecretBox> {
    if (this.configuredKey) return Promise.resolve(new SecretBox(this.configuredKey));
    if (!this.box) {
      this.box = this.stored(randomBytes(32).toString('base64')).then((s) => new SecretBox(s));
      this.box.catch(() => (this.box = null));
    }
    return this.box;
  }
}
