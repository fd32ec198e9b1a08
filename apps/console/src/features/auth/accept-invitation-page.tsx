import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { acceptInvitation } from '../../auth/session-api';
import { ErrorAlert } from '../../components/common';

export function AcceptInvitationPage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await acceptInvitation(token, { name: name.trim() || undefined, password });
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" radius="md" w={420} component="main">
        <Title order={1} size="h3" mb="md">
          {t('invite.title')}
        </Title>
        {done ? (
          <Stack>
            <Text>{t('invite.done')}</Text>
            <Button onClick={() => window.location.assign('/')}>{t('invite.toSignIn')}</Button>
          </Stack>
        ) : (
          <form onSubmit={submit}>
            <Stack>
              <ErrorAlert error={error} />
              <TextInput label={t('invite.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} />
              <PasswordInput
                label={t('invite.password')}
                autoComplete="new-password"
                required
                minLength={8}
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Button type="submit" loading={busy}>
                {t('invite.accept')}
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
