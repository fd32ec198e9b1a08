import { useTranslation } from 'react-i18next';

/**
 * Readable audit actions, object types and actor types in the console's language: "api_key.create"
 * → "API key: created" / "API-ключ: создание"; a part without a translation stays as it is.
 */
export function useAuditLabels() {
  const { t, i18n } = useTranslation();
  const part = (group: 'auditObjects' | 'auditVerbs' | 'actorTypes', key: string) =>
    i18n.exists(`${group}.${key}`) ? t(`${group}.${key}`) : key;
  return {
    action: (action: string) => {
      const parts = action.split('.');
      if (parts.length < 2) return part('auditVerbs', action);
      const verb = parts.pop()!;
      return `${parts.map((p) => part('auditObjects', p)).join(' · ')}: ${part('auditVerbs', verb)}`;
    },
    object: (type: string) => part('auditObjects', type),
    actor: (type: string) => part('actorTypes', type),
  };
}
