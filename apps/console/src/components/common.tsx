import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiRequestError } from '../api/client';
import { useTranslation } from 'react-i18next';
import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  Paper,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';

export function PageHeader({
  title,
  actions,
  description,
}: {
  title: string;
  actions?: ReactNode;
  description?: string;
}) {
  return (
    <Group justify="space-between" align="flex-start" mb="md">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        )}
      </Stack>
      {actions && <Group>{actions}</Group>}
    </Group>
  );
}

/**
 * What to show for an error: in English the server's own message; in another language the
 * translation of its error code (or of its HTTP status), the server's message kept as the detail.
 */
export function useErrorText(): (error: unknown) => { text: string; detail: string | null } {
  const { t, i18n } = useTranslation();
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    if (i18n.language.startsWith('en') || !(error instanceof ApiRequestError)) return { text: message, detail: null };
    const key = `errors.codes.${error.code ?? ''}`;
    const text = error.code && i18n.exists(key) ? t(key) : t('errors.status', { status: error.status });
    return { text, detail: message };
  };
}

/** An error: the server's message, or its translation with the server's message as a tooltip. */
export function ErrorAlert({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const describe = useErrorText();
  if (!error) return null;
  const { text, detail } = describe(error);
  return (
    <Alert color="red" title={t('common.error')} role="alert" mb="md">
      {detail ? (
        <Tooltip label={`${t('errors.serverSaid')}: ${detail}`} multiline maw={420} withArrow>
          <Text span size="sm" title={detail} tabIndex={0} data-testid="error-text">
            {text}
          </Text>
        </Tooltip>
      ) : (
        text
      )}
    </Alert>
  );
}

export function EmptyState({ title, hint, action }: { title: string; hint: string; action?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="xs">
        <Text fw={600}>{title}</Text>
        <Text c="dimmed" size="sm" ta="center">
          {hint}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}

export function LoadingRows({ rows = 4 }: { rows?: number }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs" role="status" aria-busy="true" aria-label={t('common.loading')}>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={28} radius="sm" />
      ))}
    </Stack>
  );
}

export function CopyValue({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('common.copied') : t('common.copy')} withArrow>
          <Button
            size="xs"
            variant={copied ? 'filled' : 'light'}
            color={copied ? 'teal' : undefined}
            onClick={copy}
            aria-label={copied ? `${t('common.copied')}: ${label}` : label}
          >
            {copied ? t('common.copied') : t('common.copy')}
          </Button>
        </Tooltip>
      )}
    </CopyButton>
  );
}

export function Snippet({ code, label }: { code: string; label: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <CopyValue value={code} label={t('common.copyNamed', { name: label })} />
      </Group>
      {/* a long line scrolls: the block takes keyboard focus so it can be scrolled without a mouse */}
      <Code block aria-label={label} tabIndex={0}>
        {code}
      </Code>
    </Stack>
  );
}

/**
 * A small button that opens a dialog holding a form. Submitting shows progress, keeps the dialog
 * open with the error when `onSubmit` fails and closes it when it succeeds; `onOpen` resets the
 * form's state from what it edits.
 */
export function FormDialog({
  label,
  ariaLabel,
  title,
  onOpen,
  onSubmit,
  children,
  size,
}: {
  label: string;
  ariaLabel?: string;
  title: string;
  /** the dialog's width (Mantine's Modal size); its default otherwise */
  size?: string;
  onOpen: () => void;
  onSubmit: () => Promise<unknown>;
  children: (state: { busy: boolean; error: unknown; close: () => void }) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => setOpen(false);
  return (
    <>
      <Button
        size="xs"
        variant="light"
        aria-label={ariaLabel}
        onClick={() => {
          onOpen();
          setError(null);
          setOpen(true);
        }}
      >
        {label}
      </Button>
      <Modal opened={open} onClose={close} title={title} size={size}>
        <form
          onSubmit={async (e: FormEvent) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              await onSubmit();
              close();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          {children({ busy, error, close })}
        </form>
      </Modal>
    </>
  );
}

/** A destructive action asks first. */
export function ConfirmAction({
  label,
  ariaLabel,
  title,
  body,
  onConfirm,
  busy,
}: {
  label: string;
  ariaLabel?: string;
  title: string;
  body: string;
  onConfirm: () => void | Promise<void>;
  busy?: boolean;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="xs" color="red" variant="light" aria-label={ariaLabel} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={title}>
        <Text mb="md">{body}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setOpen(false)}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={busy}
            onClick={async () => {
              await onConfirm();
              setOpen(false);
            }}
          >
            {t('common.confirm')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
