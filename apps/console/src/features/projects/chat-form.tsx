import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Button, Group, Stack, Textarea, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/common';

type ChatMessage = components['schemas']['ChatMessageInputDto'];

/**
 * Reads a pasted conversation. A JSON array is taken as the API's messages (`[{role, content,
 * created_at?}]`); otherwise each line `role: text` starts a message and a line without such a
 * prefix continues the previous one. Returns an error key when nothing usable was pasted.
 */
export function parseTranscript(text: string): { messages: ChatMessage[] } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'chats.emptyTranscript' };
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed) && parsed.length > 0) return { messages: parsed as ChatMessage[] };
    } catch {
      // falls through to the error below
    }
    return { error: 'chats.badJson' };
  }
  const messages: ChatMessage[] = [];
  for (const line of trimmed.split(/\r?\n/)) {
    const m = /^\s*([^\s:]{1,64}):(?!\/\/)\s?(.*)$/.exec(line);
    if (m) messages.push({ role: m[1].trim(), content: m[2] });
    else if (messages.length) messages[messages.length - 1].content += `\n${line}`;
    else return { error: 'chats.noRole' };
  }
  return { messages };
}

/** Attaches a conversation to the project as a chat material (indexed in windows of whole messages). */
export function ChatForm({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const { t } = useTranslation();
  const [title, setTitle] = useState('');
  const [transcript, setTranscript] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: async (messages: ChatMessage[]) =>
      unwrap(
        await api.POST('/api/v1/projects/{id}/chats', {
          params: { path: { id: projectId } },
          body: { title: title.trim(), messages },
        }),
      ),
    onSuccess: () => {
      setTitle('');
      setTranscript('');
      onAdded();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseTranscript(transcript);
    if ('error' in parsed) {
      setInvalid(t(parsed.error));
      return;
    }
    setInvalid(null);
    add.mutate(parsed.messages);
  };
  return (
    <form onSubmit={submit} aria-label={t('chats.formLabel')}>
      <Stack gap="xs">
        <Group align="flex-end">
          <TextInput
            style={{ flex: 1 }}
            label={t('chats.title')}
            required
            maxLength={512}
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
          />
          <Button type="submit" variant="light" loading={add.isPending} disabled={!title.trim() || !transcript.trim()}>
            {t('chats.attach')}
          </Button>
        </Group>
        <Textarea
          label={t('chats.transcript')}
          description={t('chats.transcriptHint')}
          required
          rows={4}
          value={transcript}
          error={invalid}
          onChange={(e) => setTranscript(e.currentTarget.value)}
        />
        <ErrorAlert error={add.error} />
      </Stack>
    </form>
  );
}
