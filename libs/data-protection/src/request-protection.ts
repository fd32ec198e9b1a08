import { ApiError, type DataProtectionNote, type RequestContext } from '@app/common';
import { modelRefusedByPolicy } from '@app/providers';
import { detectPii } from './detectors';
import { countMatches, detectOptionsOf, EntityCounts, PiiVault } from './pii-vault';
import { piiApplies, residencyAllows, type DataPolicy } from './policy';

/** What the protection needs of a catalog model. */
export interface ProtectedModel {
  key: string;
  provider: string;
}

export type Jurisdiction = 'ru' | 'foreign';

/** Where the protection reports what it did: the request's context (request log) and the metric. */
export interface ProtectionReport {
  context?: RequestContext;
  /** counts a masked or blocked request (once each) */
  count(action: 'masked' | 'blocked'): void;
}

function describe(counts: EntityCounts): string {
  return Object.entries(counts)
    .map(([t, n]) => `${t} ×${n}`)
    .join(', ');
}

/**
 * The data policy applied to one request: which models it may reach (residency), and what happens
 * to personal data in the text sent to them — refused (block) or replaced by placeholders that the
 * answer gets back (mask, one vault per request so a value keeps its placeholder everywhere).
 */
export class RequestProtection {
  /** the request's placeholders (pii "mask" only) */
  readonly vault: PiiVault | null;
  private masked = false;
  private readonly note: DataProtectionNote | null;

  constructor(
    readonly policy: DataPolicy | null,
    private readonly jurisdictionOf: (m: ProtectedModel) => Jurisdiction,
    private readonly report: ProtectionReport,
  ) {
    const open = !policy || (policy.residency === 'any' && policy.pii === 'off');
    this.vault = policy && policy.pii === 'mask' ? new PiiVault(detectOptionsOf(policy)) : null;
    this.note = open
      ? null
      : {
          residency: policy.residency,
          pii: policy.pii,
          pii_scope: policy.pii_scope,
          action: 'none',
          entities: this.vault ? (this.vault.counts as Record<string, number>) : {},
        };
    if (this.note && report.context) report.context.dataProtection = this.note;
  }

  /** True when the policy lets the request reach this model. */
  allows(m: ProtectedModel): boolean {
    return residencyAllows(this.policy, this.jurisdictionOf(m));
  }

  /** 403 model_not_allowed_by_policy unless the policy lets the request reach this model. */
  assertAllowed(m: ProtectedModel, param: string | null = 'model'): void {
    if (!this.allows(m)) throw modelRefusedByPolicy(m.key, param);
  }

  /** True when personal data sent to this model is masked. */
  masksFor(m: ProtectedModel): boolean {
    return this.vault !== null && piiApplies(this.policy, this.jurisdictionOf(m));
  }

  /** True when personal data sent to this model is refused. */
  blocksFor(m: ProtectedModel): boolean {
    return this.policy?.pii === 'block' && piiApplies(this.policy, this.jurisdictionOf(m));
  }

  /** True when anything this request sends may be masked or refused (for some model). */
  get detects(): boolean {
    return !!this.policy && this.policy.pii !== 'off';
  }

  /**
   * Block mode: the entities found in `texts`, counted by type (empty when none). The caller
   * refuses with `refuse(counts)` when a model it would reach blocks them.
   */
  scan(texts: Iterable<string>): EntityCounts {
    const counts: EntityCounts = {};
    if (!this.policy || this.policy.pii !== 'block') return counts;
    const options = detectOptionsOf(this.policy);
    for (const t of texts) if (t) countMatches(detectPii(t, options), counts);
    return counts;
  }

  /** 400 pii_detected with the entity types and counts (never the values); recorded and counted. */
  refuse(counts: EntityCounts, param: string | null = null): ApiError {
    if (this.note) {
      this.note.action = 'blocked';
      this.note.entities = counts as Record<string, number>;
    }
    this.report.count('blocked');
    return ApiError.badRequest(
      `The request contains personal data that the data policy of this team or key does not let leave: ${describe(counts)}. Remove it, or ask a team admin to change the policy.`,
      param,
      'pii_detected',
    );
  }

  /** Block mode over `texts` for a call that reaches only `model`: 400 pii_detected when something is found. */
  screenFor(m: ProtectedModel, texts: Iterable<string>, param: string | null = null): void {
    if (!this.blocksFor(m)) return;
    const counts = this.scan(texts);
    if (Object.keys(counts).length) throw this.refuse(counts, param);
  }

  /** `text` as sent to a model that masks: values replaced by the request's placeholders. */
  mask(text: string): string {
    if (!this.vault) return text;
    const out = this.vault.mask(text);
    if (out !== text && !this.masked) {
      this.masked = true;
      if (this.note) this.note.action = 'masked';
      this.report.count('masked');
      if (this.report.context) this.report.context.bodyMasker = (t) => this.vault!.mask(t, false);
    }
    return out;
  }

  /** Masks `text` when `m` masks, else returns it unchanged. */
  maskFor(m: ProtectedModel, text: string): string {
    return this.masksFor(m) ? this.mask(text) : text;
  }

  /** The answer's placeholders turned back into the values. */
  restore(text: string): string;
  restore(text: string | null | undefined): string | null | undefined;
  restore(text: string | null | undefined): string | null | undefined {
    return this.vault && typeof text === 'string' ? this.vault.restore(text) : text;
  }

  /** True when something was masked: the answer needs restoring. */
  get restores(): boolean {
    return this.vault?.used ?? false;
  }
}
