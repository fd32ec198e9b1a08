import { useTranslation } from 'react-i18next';
import i18n from './index';

type Group = 'auditObjects' | 'auditVerbs' | 'actorTypes' | 'auditReasons';

/**
 * One part of an audit label in `lang`, from that language's own resources only: i18next would
 * otherwise fall back to English, and a Russian page must never show English. A part missing in
 * Russian becomes a neutral Russian word; in English the code itself is readable enough.
 */
export function auditPart(group: Group, key: string, lang: string): string {
  const own = i18n.getResource(lang, 'translation', `${group}.${key}`) as unknown;
  if (typeof own === 'string') return own;
  if (lang === 'en') return key.replace(/_/g, ' ');
  return i18n.getFixedT(lang)(`audit.unknown.${group}`);
}

/**
 * "api_key.create" → "API key: created" / "API-ключ: создание"; "catalog.model.update" →
 * "catalog · model: changed".
 */
export function auditActionLabel(action: string, lang: string): string {
  const parts = action.split('.');
  if (parts.length < 2) return auditPart('auditVerbs', action, lang);
  const verb = parts.pop()!;
  return `${parts.map((p) => auditPart('auditObjects', p, lang)).join(' · ')}: ${auditPart('auditVerbs', verb, lang)}`;
}

/** Readable audit actions, object types, actor types and reasons in the console's language. */
export function useAuditLabels() {
  const { i18n: current } = useTranslation();
  const lang = current.language;
  return {
    action: (action: string) => auditActionLabel(action, lang),
    object: (type: string) => auditPart('auditObjects', type, lang),
    actor: (type: string) => auditPart('actorTypes', type, lang),
    reason: (reason: string) => auditPart('auditReasons', reason, lang),
  };
}
