import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FileInput, Group, Progress, Select, Stack, TextInput } from '@mantine/core';
import { uploadWithProgress } from '../../api/upload';
import { ErrorAlert } from '../../components/common';

export type MessengerFormat = 'telegram' | 'whatsapp' | 'slack';

/** The export format a file most likely is: Telegram Desktop's result.json, WhatsApp's .txt, Slack's .zip. */
export function guessFormat(fileName: string): MessengerFormat | null {
  const name = fileName.toLowerCase();
  if (name.endsWith('.json')) return 'telegram';
  if (name.endsWith('.txt')) return 'whatsapp';
  if (name.endsWith('.zip')) return 'slack';
  return null;
}

/**
 * Imports a messaging-app export into the project as a chat material. The file goes up as one
 * multipart request with its progress shown; the server parses it and answers 202 with the material,
 * or refuses it with its own message.
 */
export function MessengerImportForm({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<MessengerFormat | null>(null);
  const [title, setTitle] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const abort = useRef<AbortController | null>(null);

  const pick = (f: File | null) => {
    setFile(f);
    setError(null);
    if (f) setFormat((current) => guessFormat(f.name) ?? current);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !format) return;
    const form = new FormData();
    form.append('format', format);
    if (title.trim()) form.append('title', title.trim());
    form.append('file', file, file.name);
    setError(null);
    setProgress(0);
    abort.current = new AbortController();
    try {
      await uploadWithProgress(
        `/api/v1/projects/${projectId}/messenger-chats`,
        form,
        setProgress,
        abort.current.signal,
      );
      setFile(null);
      setTitle('');
      onAdded();
    } catch (err) {
      setError(err as Error);
    } finally {
      setProgress(null);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t('messenger.formLabel')}>
      <Stack gap="xs">
        <Group align="flex-end">
          <FileInput
            style={{ flex: 1 }}
            label={t('messenger.file')}
            description={t('messenger.fileHint')}
            placeholder={t('messenger.pick')}
            accept=".json,.txt,.zip,application/json,text/plain,application/zip"
            clearable
            fileInputProps={{ 'aria-label': t('messenger.fileInput') }}
            value={file}
            onChange={pick}
          />
          <Select
            label={t('messenger.format')}
            w={200}
            allowDeselect={false}
            value={format}
            onChange={(v) => setFormat(v as MessengerFormat | null)}
            data={[
              { value: 'telegram', label: t('messenger.telegram') },
              { value: 'whatsapp', label: t('messenger.whatsapp') },
              { value: 'slack', label: t('messenger.slack') },
            ]}
          />
          <TextInput
            label={t('messenger.title')}
            maxLength={512}
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
          />
          <Button type="submit" variant="light" loading={progress !== null} disabled={!file || !format}>
            {t('messenger.import')}
          </Button>
        </Group>
        {progress !== null && file && (
          <Progress
            value={Math.round(progress * 100)}
            aria-label={t('materials.uploading', { name: file.name })}
            animated={progress < 1}
          />
        )}
        <ErrorAlert error={error} />
      </Stack>
    </form>
  );
}
