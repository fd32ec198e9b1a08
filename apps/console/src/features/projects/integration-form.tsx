import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Code, Group, NumberInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { CopyValue, ErrorAlert } from '../../components/common';

type Integration = components['schemas']['IntegrationDto'];

/** Adds a webhook (its URL and signing secret are shown once) or an external API fetched on a schedule. */
export function IntegrationForm({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const { t } = useTranslation();
  const [type, setType] = useState<'webhook' | 'external_api'>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [interval, setInterval] = useState<number | string>(3600);
  const [created, setCreated] = useState<Integration | null>(null);
  const add = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/projects/{id}/integrations', {
          params: { path: { id: projectId } },
          body:
            type === 'webhook'
              ? { type, name: name.trim() }
              : { type, name: name.trim(), url: url.trim(), interval_seconds: Number(interval) || 3600 },
        }),
      ),
    onSuccess: (i) => {
      setCreated(i);
      setName('');
      setUrl('');
      onAdded();
    },
  });
  const hookUrl = created ? new URL(created.url, window.location.origin).toString() : '';
  return (
    <Stack gap="xs">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <Group align="flex-end">
          <SegmentedControl
            aria-label={t('integrations.type')}
            value={type}
            onChange={(v) => setType(v as 'webhook' | 'external_api')}
            data={[
              { value: 'webhook', label: t('integrations.webhook') },
              { value: 'external_api', label: t('integrations.externalApi') },
            ]}
          />
          <TextInput
            label={t('integrations.name')}
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          {type === 'external_api' && (
            <>
              <TextInput
                label={t('integrations.url')}
                type="url"
                required
                value={url}
                onChange={(e) => setUrl(e.currentTarget.value)}
              />
              <NumberInput
                label={t('integrations.interval')}
                min={300}
                value={interval}
                onChange={setInterval}
                w={140}
              />
            </>
          )}
          <Button type="submit" variant="light" loading={add.isPending} disabled={!name.trim()}>
            {t('integrations.add')}
          </Button>
        </Group>
      </form>
      <ErrorAlert error={add.error} />
      {created?.type === 'webhook' && created.secret && (
        <Alert color="yellow" title={t('integrations.createdWebhook')} withCloseButton onClose={() => setCreated(null)}>
          <Stack gap={6}>
            <Group gap="xs">
              <Text size="sm" fw={600}>
                URL
              </Text>
              <Code data-testid="webhook-url">{hookUrl}</Code>
              <CopyValue value={hookUrl} label={t('integrations.copyUrl')} />
            </Group>
            <Group gap="xs">
              <Text size="sm" fw={600}>
                {t('integrations.secret')}
              </Text>
              <Code data-testid="webhook-secret">{created.secret}</Code>
              <CopyValue value={created.secret} label={t('integrations.copySecret')} />
            </Group>
            <Text size="xs">{t('integrations.secretOnce')}</Text>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
