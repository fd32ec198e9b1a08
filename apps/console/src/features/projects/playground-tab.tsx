import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Button, Group, List, Paper, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { postStream } from '../../api/sse';
import { usePermissions } from '../../auth/auth-context';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/common';
import { formatNumber, formatRub } from '../../i18n';
import { useModels, type CatalogModel } from './project-queries';

type ChatResponse = components['schemas']['ChatResponseDto'];
type Source = components['schemas']['ChatSourceDto'];

interface Turn {
  prompt: string;
  answer: string;
  reasoning: string;
  result?: ChatResponse;
  error?: string;
}

export function ModelPicker({ value, onChange }: { value: string | null; onChange: (v: string) => void }) {
  const { t, i18n } = useTranslation();
  const models = useModels();
  const chat = ((models.data?.data ?? []) as CatalogModel[]).filter((m) => m.kind === 'chat' && m.available);
  return (
    <Select
      label={t('playground.model')}
      w={360}
      searchable
      allowDeselect={false}
      value={value}
      onChange={(v) => v && onChange(v)}
      data={chat.map((m) => ({
        value: m.key,
        label: `${m.key} · ${formatRub(m.pricing?.input_rub_per_1m, i18n.language)} / ${formatRub(m.pricing?.output_rub_per_1m, i18n.language)} ${t('models.per1m')}`,
      }))}
    />
  );
}

export function PlaygroundTab({ projectId }: { projectId: string }) {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [model, setModel] = useState<string | null>('local');
  const [system, setSystem] = useState('');
  const [prompt, setPrompt] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const can = usePermissions();
  // the chat is made with the console's own credential: a member's session is charged to its
  // current team (x-team-id, CSRF) exactly as an API key of that team would be

  const update = (i: number, f: (t: Turn) => Turn) => setTurns((ts) => ts.map((x, j) => (j === i ? f(x) : x)));

  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!model || !prompt.trim()) return;
    const history = turns
      .filter((x) => x.result)
      .flatMap((x) => [
        { role: 'user' as const, content: x.prompt },
        { role: 'assistant' as const, content: x.answer },
      ]);
    const index = turns.length;
    setTurns((ts) => [...ts, { prompt: prompt.trim(), answer: '', reasoning: '' }]);
    setPrompt('');
    setBusy(true);
    abort.current = new AbortController();
    try {
      await postStream(
        '/api/v1/chat',
        {
          model,
          user_id: 'console',
          project_id: projectId,
          prompt: prompt.trim(),
          system_prompt: system.trim() || undefined,
          messages: history.length ? history : undefined,
          stream: true,
        },
        (event, data) => {
          const d = data as Record<string, unknown>;
          if (event === 'delta') update(index, (x) => ({ ...x, answer: x.answer + String(d.text ?? '') }));
          else if (event === 'reasoning')
            update(index, (x) => ({ ...x, reasoning: x.reasoning + String(d.reasoning ?? '') }));
          else if (event === 'done') update(index, (x) => ({ ...x, result: d as unknown as ChatResponse }));
          else if (event === 'error')
            update(index, (x) => ({ ...x, error: (d.error as { message?: string })?.message ?? 'error' }));
        },
        abort.current.signal,
      );
    } catch (err) {
      update(index, (x) => ({ ...x, error: (err as Error).message }));
    } finally {
      setBusy(false);
      void qc.invalidateQueries({ queryKey: ['balance'] });
    }
  };

  return (
    <Stack>
      <ModelPicker value={model} onChange={setModel} />
      <Textarea
        label={t('playground.system')}
        autosize
        minRows={2}
        value={system}
        onChange={(e) => setSystem(e.currentTarget.value)}
      />
      <Stack gap="md" aria-live="polite">
        {turns.map((turn, i) => (
          <Paper key={i} withBorder p="md" radius="md">
            <Text fw={600} mb={4}>
              {turn.prompt}
            </Text>
            {turn.reasoning && (
              <Text size="sm" c="dimmed" fs="italic" mb={4}>
                {t('playground.reasoning')}: {turn.reasoning}
              </Text>
            )}
            <Text style={{ whiteSpace: 'pre-wrap' }} data-testid="answer">
              {turn.answer}
            </Text>
            {turn.error && <ErrorAlert error={turn.error} />}
            {turn.result && <AnswerFacts result={turn.result} lang={i18n.language} />}
          </Paper>
        ))}
      </Stack>
      {!can.canWrite && <Alert color="blue">{t('playground.viewer')}</Alert>}
      <form onSubmit={(e) => void send(e)} hidden={!can.canWrite}>
        <Stack gap="xs">
          <Textarea
            label={t('playground.prompt')}
            autosize
            minRows={2}
            value={prompt}
            onChange={(e) => setPrompt(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
            }}
          />
          <Group>
            <Button type="submit" loading={busy} disabled={!prompt.trim() || !model}>
              {t('playground.send')}
            </Button>
            {busy && (
              <Button variant="default" onClick={() => abort.current?.abort()}>
                {t('playground.stop')}
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function AnswerFacts({ result, lang }: { result: ChatResponse; lang: string }) {
  const { t } = useTranslation();
  const sources = (result.sources ?? []) as Source[];
  return (
    <Stack gap={6} mt="sm">
      <Group gap="xs">
        <Badge variant="light">
          {t('playground.tokens', {
            prompt: formatNumber(result.usage.prompt_tokens, lang),
            completion: formatNumber(result.usage.completion_tokens, lang),
          })}
        </Badge>
        <Badge variant="light" color="teal" data-testid="answer-cost">
          {t('playground.cost')}: {formatRub(result.cost.total_cost_rub, lang, 6)}
        </Badge>
      </Group>
      {sources.length > 0 && (
        <>
          <Title order={3} size="h6">
            {t('playground.sources')}
          </Title>
          <List size="sm" aria-label={t('playground.sources')}>
            {sources.map((s) => (
              <List.Item key={`${s.n}-${s.material_id}`}>
                [{s.n}] {s.url ? <Anchor href={s.url}>{s.title}</Anchor> : s.title}
                {s.page ? ` · ${t('playground.page', { page: s.page })}` : ''}
                {typeof s.score === 'number' ? ` · ${s.score.toFixed(3)}` : ''}
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Stack>
  );
}
